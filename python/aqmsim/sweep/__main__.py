"""``python -m aqmsim.sweep``: the local pool's throughput benchmark."""

from .throughput import bench_throughput

if __name__ == "__main__":  # pragma: no cover
    for row in bench_throughput([1, 2, None]):
        print(f"{row['workers']:>3} workers: {row['runs']} runs in {row['seconds']:.2f} s "
              f"-> {row['runs_per_s']:.2f} runs/s, speedup {row['speedup']:.2f}, "
              f"efficiency {row['efficiency']:.0%} (a run: {row['run_s'] * 1e3:.0f} ms; "
              f"worker start {row['startup_s']:.2f} s)")
