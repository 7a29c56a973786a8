//! Micro-benchmarks of the engine's hot paths (Criterion; `harness = false`).
//!
//! ```text
//! cargo bench -p aqmsim-core --bench hot_paths                 # full measurement
//! cargo bench -p aqmsim-core --bench hot_paths -- --quick      # a quick look
//! cargo bench -p aqmsim-core --bench hot_paths -- red          # one group
//! ```
//!
//! * `sched/*`: the event queue (a calendar). One push and one pop with the queue held at a steady size
//!   (the size of a running dumbbell's queue: a few events per flow and link), with
//!   times drawn ahead of "now" the way link and timer events are.
//! * `red/on_enqueue/*`: one RED decision (EWMA, count, probability, coin) on the
//!   benchmark's bottleneck parameters, with the average below min_th, between the
//!   thresholds and above max_th.
//! * `tcp/recv_ack`: one new ACK to a Reno sender in congestion avoidance whose window is
//!   open (it answers with a data packet), and `tcp/ack_clock`: one ACK-clock turn, sink
//!   receiving a data packet and the sender the resulting ACK.
//!
//! The whole-run figure (packets per wall second, against ns-2 and ns-3) is
//! `make bench`; see docs/performance.md.

use aqmsim_core::aqm::{Aqm, QueueView, Red, RedParams};
use aqmsim_core::packet::{Kind, Packet};
use aqmsim_core::rng::Rng;
use aqmsim_core::sched::{Event, Scheduler};
use aqmsim_core::tcp::{TcpParams, TcpSender, TcpSink};
use aqmsim_core::time::SimTime;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::collections::VecDeque;
use std::hint::black_box;

// ------------------------------------------------------------------------ event queue

/// A scheduler holding `n` events spread over the next 50 ms after `now`.
fn filled_scheduler(n: usize, rng: &mut Rng) -> Scheduler {
    let mut s = Scheduler::with_capacity(n + 1);
    for i in 0..n {
        let at = SimTime((rng.uniform() * 50e6) as u64);
        s.schedule(at, Event::Forward { link: i as u32, slot: 0, counted: false });
    }
    s
}

fn bench_sched(c: &mut Criterion) {
    let mut g = c.benchmark_group("sched");
    g.throughput(Throughput::Elements(1));
    for &n in &[64usize, 1024, 16_384] {
        // push + pop at steady size n: pop the earliest event, schedule one 0–50 ms later.
        g.bench_function(format!("push_pop/steady_{n}"), |b| {
            let mut rng = Rng::new(7, 1);
            let mut s = filled_scheduler(n, &mut rng);
            b.iter(|| {
                let (now, ev) = s.pop().expect("never empty");
                let at = SimTime(now.0 + (rng.uniform() * 50e6) as u64);
                s.schedule(at, black_box(ev));
            })
        });
    }
    // Same-time bursts: FIFO order among equal times is part of the key.
    g.bench_function("push_pop/same_time_1024", |b| {
        let mut s = Scheduler::with_capacity(1025);
        for i in 0..1024u32 {
            s.schedule(SimTime(1_000), Event::TxDone { link: i });
        }
        b.iter(|| {
            let (now, ev) = s.pop().expect("never empty");
            s.schedule(now, black_box(ev));
        })
    });
    g.finish();
}

// ------------------------------------------------------------------------ RED

/// The benchmark scenarios' bottleneck RED: min_th 30, max_th 90, max_p 0.1, w_q 0.002,
/// limit 300, packet mode, not gentle, wait, no ECN, 100 Mb/s of 1000-byte packets.
fn bench_red_params() -> RedParams {
    RedParams {
        min_th: 30.0,
        max_th: 90.0,
        max_p: 0.1,
        w_q: 0.002,
        limit: 300,
        gentle: false,
        wait: true,
        ecn: false,
        use_mark_p: true,
        mark_p: 0.1,
        bytes: false,
        queue_in_bytes: false,
        mean_pktsize: 1000.0,
        max_pktsize: 1040.0,
        ecn_front: false,
        ptc: 100e6 / (8.0 * 1000.0),
    }
}

fn bench_red(c: &mut Criterion) {
    let mut g = c.benchmark_group("red/on_enqueue");
    g.throughput(Throughput::Elements(1));
    let pkt = Packet::new(Kind::Data, 3, 1234, 1040, 7, SimTime::ZERO);
    // (label, queue length seen by every arrival): the EWMA settles near it.
    for &(label, qlen) in &[
        ("below_min_th", 10u32),
        ("between_thresholds", 60),
        ("above_max_th", 150),
    ] {
        g.bench_function(label, |b| {
            let mut red = Red::new(bench_red_params());
            let mut rng = Rng::new(11, 3);
            let view = QueueView {
                len_pkts: qlen,
                len_bytes: qlen as u64 * 1040,
            };
            let mut now = SimTime::from_secs(1.0);
            // Warm the average up to the queue length (w_q 0.002: ~5000 arrivals).
            for _ in 0..20_000 {
                now = SimTime(now.0 + 83_200);
                red.on_enqueue(&pkt, &view, now, &mut rng);
            }
            b.iter(|| {
                now = SimTime(now.0 + 83_200); // one 1040-byte packet time at 100 Mb/s
                black_box(red.on_enqueue(black_box(&pkt), black_box(&view), now, &mut rng))
            })
        });
    }
    g.finish();
}

// ------------------------------------------------------------------------ TCP

/// A Reno sender (window 100, the benchmark's) and its sink, run loss-free until the
/// sender is in congestion avoidance with a full window in flight. Returns them with the
/// data packets in flight (oldest first) and the current time.
fn steady_state_tcp() -> (TcpSender, TcpSink, VecDeque<Packet>, SimTime) {
    let p = TcpParams {
        window: 100.0,
        ..TcpParams::default()
    };
    let mut snd = TcpSender::new(p.clone(), 0, 1, 0.0);
    let mut sink = TcpSink::new(
        0,
        0,
        p.ack_size,
        p.header,
        false,
        p.delack_interval,
        p.syn,
        false,
    );
    let mut now = SimTime::from_secs(0.5);
    let mut out = Vec::new();
    snd.start_bulk(now, &mut out);
    let mut flight: VecDeque<Packet> = out.drain(..).collect();
    // One packet time per turn (83.2 µs at 100 Mb/s), so RTT samples stay realistic.
    for _ in 0..50_000 {
        now = SimTime(now.0 + 83_200);
        let data = flight
            .pop_front()
            .expect("window never empties without loss");
        if let Some(ack) = sink.recv(&data, now) {
            snd.recv_ack(&ack, now, &mut out);
        }
        flight.extend(out.drain(..));
    }
    assert!(
        snd.cwnd >= snd.ssthresh as f64,
        "not in congestion avoidance: cwnd {}",
        snd.cwnd
    );
    (snd, sink, flight, now)
}

fn bench_tcp(c: &mut Criterion) {
    let mut g = c.benchmark_group("tcp");
    g.throughput(Throughput::Elements(1));

    // recv_ack alone: each iteration gets a fresh clone of one steady-state sender and
    // the next ACK (clone and ACK built outside the timed part).
    let (snd, mut sink, mut flight, now) = steady_state_tcp();
    let data = flight.pop_front().unwrap();
    let ack = sink.recv(&data, now).expect("sink ACKs every packet");
    let t = SimTime(now.0 + 83_200);
    g.bench_function("recv_ack/new_ack_congestion_avoidance", |b| {
        b.iter_batched_ref(
            || (snd.clone(), Vec::with_capacity(4)),
            |(s, out)| {
                s.recv_ack(black_box(&ack), t, out);
                black_box(out.len())
            },
            BatchSize::SmallInput,
        )
    });

    // The ACK clock: sink receives the oldest data packet, the sender its ACK.
    g.bench_function("ack_clock/sink_recv_plus_recv_ack", |b| {
        let (mut snd, mut sink, mut flight, mut now) = steady_state_tcp();
        let mut out = Vec::with_capacity(4);
        b.iter(|| {
            now = SimTime(now.0 + 83_200);
            let data = flight
                .pop_front()
                .expect("window never empties without loss");
            if let Some(ack) = sink.recv(&data, now) {
                snd.recv_ack(&ack, now, &mut out);
            }
            flight.extend(out.drain(..));
        })
    });
    g.finish();
}

criterion_group!(benches, bench_sched, bench_red, bench_tcp);
criterion_main!(benches);
