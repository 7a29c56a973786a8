"""The TCP of a linux-stack scenario as ``benchmarks/ns3/dumbbell.cc``'s arguments: shared by
the bench's ns-3 runs (``ns3.py``) and its L4S plan (``ns3_l4s.py``)."""

from __future__ import annotations

from typing import Any, List, Mapping

from .sims import Unsupported

__all__ = ["linux_tcp_arguments"]


def linux_tcp_arguments(tcp: Mapping[str, Any]) -> List[str]:
    """dumbbell.cc's arguments that give ns-3 a linux-stack table's TCP: ns-3's defaults
    where the table leaves the linux stack's (which are ns-3's), its values where it sets
    one. ``--ns3::Type::Attribute`` values win over the program's own settings (its
    initial window 2, ACK per segment, classic recovery, 0.2 s minimum RTO, 10 ms clock)."""
    from aqmsim.ns2.export import parse_time

    if float(tcp["rto_init"]) != 1.0 or float(tcp["max_rto"]) != 60.0:
        raise Unsupported("the ns-3 program keeps ns-3's initial RTO (1 s) and RTO cap (60 s)")
    if not tcp.get("sack", True) or int(tcp["header"]) != 40:
        raise Unsupported("the ns-3 program runs SACK with 40-byte headers (plus the timestamp option, if on)")
    buf = int(round(float(tcp["window"]) * int(tcp["packet_size"])))
    delack = int(tcp["delack_count"]) if tcp["delayed_ack"] else 1
    args = [
        "--ns3Defaults=1",
        f"--ns3::TcpSocket::InitialCwnd={int(tcp['window_init'])}",
        "--recovery=prr",
        f"--ns3::TcpSocket::RcvBufSize={buf}",
        f"--ns3::TcpSocket::SndBufSize={buf}",
        "--ns3::TcpSocket::InitialSlowStartThreshold=4294967295",
        f"--ns3::TcpSocket::DelAckCount={delack}",
        f"--ns3::TcpSocket::DelAckTimeout={parse_time(tcp['delack_interval'])!r}s",
        f"--ns3::TcpSocketBase::MinRto={parse_time(tcp['min_rto'])!r}s",
        "--ns3::TcpSocketBase::ClockGranularity=1ms",
        f"--ns3::TcpSocketBase::Timestamp={'true' if tcp['timestamps'] else 'false'}",
        f"--ns3::TcpSocketBase::ReTxThreshold={int(tcp['dupacks'])}",
    ]
    if tcp.get("pacing") and str(tcp["variant"]).lower() != "bbr":  # TcpBbr paces anyway
        args.append("--ns3::TcpSocketState::EnablePacing=true")
    for key, attr in (("cubic_beta", "TcpCubic::Beta"), ("cubic_c", "TcpCubic::C"),
                      ("fast_convergence", "TcpCubic::FastConvergence"), ("dctcp_g", "TcpDctcp::DctcpShiftG"),
                      ("dctcp_alpha_init", "TcpDctcp::DctcpAlphaOnInit")):
        if key in tcp:
            v = tcp[key]
            args.append(f"--ns3::{attr}={('true' if v else 'false') if isinstance(v, bool) else v!r}")
    return args
