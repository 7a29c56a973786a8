// One deterministic bulk TCP flow in ns-3.37 (Debian's libns3-dev): the reference for issue
// 24's "cwnd series value for value" check (python/aqmsim/ns3tcp.py builds and runs it; see
// docs/ns3-tcp-reference.md for what ns-3's TCP does by default).
//
//   benchmarks/ns3/build.sh single_flow     # prints target/ns3-bench/single_flow-<version>
//   target/ns3-bench/single_flow-3.37 --tcp=bbr --duration=10
//   target/ns3-bench/single_flow-3.37 --PrintHelp
//
// Topology (one sender, one receiver):
//   S --access, accessDelay-- R1 ==bottleneck, bottleneckDelay, <queue>== R2 --access, accessDelay-- D
// * One BulkSend (MaxBytes 0: always data to send) from S to a PacketSink on D, started at
//   --start s (default 0.1, no random start); the run stops at --duration s.
// * The bottleneck disc on R1's device to R2 is --queue:
//     droptail  FifoQueueDisc (ns-3's DropTail disc), MaxSize = --limit packets (default 100)
//     codel     CoDelQueueDisc with ns-3's defaults, MaxSize = --limit, UseEcn = --ecn, and
//               for DCTCP CeThreshold = --ceThreshold (default 1ms, ns-3's tcp.rst)
//     red       RedQueueDisc as a step marker (ns-3's examples/tcp/dctcp-example.cc):
//               QW 1, MinTh = MaxTh = --markTh packets (default 20), UseEcn = --ecn,
//               UseHardDrop off, MaxSize = --limit
//   Below the disc the device holds one packet (DropTailQueue 1p), as the project's other
//   ns-3 programs; every other device has a FIFO disc of 1000 packets and ns-3's default
//   device queue (100 packets), so nothing but the bottleneck queues or drops.
// * --tcp = newreno | cubic | dctcp | bbr | ledbat picks TcpNewReno, TcpCubic, TcpDctcp,
//   TcpBbr, TcpLedbat. --ecn sets TcpSocketBase::UseEcn = On (DCTCP turns ECN on itself,
//   TcpDctcp::Init; the disc's UseEcn follows --ecn or dctcp).
// * Send and receive buffers are 4 MiB (ns-3: 128 KiB) so the receive window never limits
//   the flow. Everything else is ns-3.37's default (segment 536 B, IW 10, SACK, timestamps, PRR,
//   delayed ACK count 2 / 200 ms, min RTO 1 s, pacing off except BBR, ...), and every ns-3
//   attribute can be set on the command line: --ns3::TcpSocket::SegmentSize=1448,
//   --ns3::TcpL4Protocol::RecoveryType=ns3::TcpClassicRecovery, --ns3::TcpBbr::HighGain=3 ...
//   (they are parsed after this program's own defaults, so they win).
// * Deterministic: RngSeedManager seed 1, run --seed (BBR's random cycle start and
//   LEDBAT have the only draws).
//
// Output on stdout, one event per line, times in integer nanoseconds:
//   cwnd <t> <old> <new>         CongestionWindow (bytes)
//   cwnd_infl <t> <old> <new>    CongestionWindowInflated (bytes; fast recovery's inflation)
//   ssthresh <t> <old> <new>     SlowStartThreshold (bytes)
//   state <t> <old> <new>        CongState (TcpCongState_t: 0 open, 1 disorder, 2 cwr, 3 recovery, 4 loss)
//   ecn <t> <old> <new>          EcnState (TcpSocketState::EcnState_t number)
//   rtt <t> <rtt ns>             RTT (the last RTT sample, each time one is taken)
//   rto <t> <rto ns>             RTO (the retransmission timeout, on change)
//   inflight <t> <old> <new>     BytesInFlight (bytes)
//   pacing <t> <old> <new>       PacingRate (b/s; BBR sets it on every ACK)
//   bbr <t> <old> <new>          TcpBbr's mode (STARTUP, DRAIN, PROBE_BW, PROBE_RTT), read
//                                from TcpBbr's own debug log line "Changing from X to Y"
//                                (SetBbrState; m_state is private and has no trace source)
//   qlen <t> <old> <new>         the bottleneck disc's PacketsInQueue (packets)
//   drop <t> <bytes>             a packet the bottleneck disc dropped
//   mark <t> <bytes>             a packet the bottleneck disc CE-marked
// and at the end `key value` lines: tcp, queue, duration, rx_bytes (the sink's),
// bottleneck_drops, bottleneck_marks, bottleneck_sent, events, wall_s.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <streambuf>
#include <string>

using namespace ns3;

static int64_t
NowNs()
{
    return Simulator::Now().GetNanoSeconds();
}

static void
OnU32(const char* kind, uint32_t old, uint32_t now)
{
    std::printf("%s %lld %u %u\n", kind, (long long)NowNs(), old, now);
}

static void
OnCongState(TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t now)
{
    std::printf("state %lld %d %d\n", (long long)NowNs(), int(old), int(now));
}

static void
OnEcnState(TcpSocketState::EcnState_t old, TcpSocketState::EcnState_t now)
{
    std::printf("ecn %lld %d %d\n", (long long)NowNs(), int(old), int(now));
}

static void
OnTime(const char* kind, Time, Time now)
{
    std::printf("%s %lld %lld\n", kind, (long long)NowNs(), (long long)now.GetNanoSeconds());
}

static void
OnPacing(DataRate old, DataRate now)
{
    std::printf("pacing %lld %llu %llu\n", (long long)NowNs(), (unsigned long long)old.GetBitRate(),
                (unsigned long long)now.GetBitRate());
}

static void
OnDrop(Ptr<const QueueDiscItem> item)
{
    std::printf("drop %lld %u\n", (long long)NowNs(), item->GetSize());
}

static void
OnMark(Ptr<const QueueDiscItem> item, const char*)
{
    std::printf("mark %lld %u\n", (long long)NowNs(), item->GetSize());
}

// std::clog's buffer while TcpBbr logs at debug level: keeps only SetBbrState's lines
// ("<time> Changing from BBR_X to BBR_Y") and prints them as `bbr <t> X Y`.
class BbrModeLog : public std::streambuf
{
  protected:
    int overflow(int c) override
    {
        if (c == '\n')
        {
            Line();
        }
        else if (c != EOF)
        {
            m_line.push_back(char(c));
        }
        return c;
    }

  private:
    void Line()
    {
        static const std::string key = " Changing from BBR_";
        size_t a = m_line.find(key);
        size_t b = m_line.find(" to BBR_");
        if (a != std::string::npos && b != std::string::npos && b > a)
        {
            std::string from = m_line.substr(a + key.size(), b - a - key.size());
            std::string to = m_line.substr(b + 8);
            std::printf("bbr %lld %s %s\n", (long long)NowNs(), from.c_str(), to.c_str());
        }
        m_line.clear();
    }

    std::string m_line;
};

// Connects the sender socket's traces once BulkSend has made it.
static void
TraceSocket(Ptr<Application> app)
{
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnU32, "cwnd"));
    s->TraceConnectWithoutContext("CongestionWindowInflated",
                                  MakeBoundCallback(&OnU32, "cwnd_infl"));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnU32, "ssthresh"));
    s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnU32, "inflight"));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    s->TraceConnectWithoutContext("EcnState", MakeCallback(&OnEcnState));
    s->TraceConnectWithoutContext("RTT", MakeBoundCallback(&OnTime, "rtt"));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnTime, "rto"));
    s->TraceConnectWithoutContext("PacingRate", MakeCallback(&OnPacing));
}

int
main(int argc, char* argv[])
{
    auto t0 = std::chrono::steady_clock::now();
    std::string tcp = "newreno";
    std::string queue = "droptail";
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "20ms";
    std::string accessRate = "1Gbps";
    std::string accessDelay = "1ms";
    uint32_t limit = 100;
    bool ecn = false;
    std::string ceThreshold = "1ms";
    double markTh = 20;
    double start = 0.1;
    double duration = 10.0;
    uint32_t seed = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("tcp", "newreno (default), cubic, dctcp, bbr or ledbat", tcp);
    cmd.AddValue("queue", "bottleneck disc: droptail (default), codel or red (step marker)", queue);
    cmd.AddValue("bottleneck", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("access", "access and egress link rate", accessRate);
    cmd.AddValue("accessDelay", "access and egress one-way delay", accessDelay);
    cmd.AddValue("limit", "bottleneck disc limit, packets", limit);
    cmd.AddValue("ecn", "TCP UseEcn On and the disc's UseEcn (dctcp: always)", ecn);
    cmd.AddValue("ceThreshold", "CoDel's CeThreshold for DCTCP", ceThreshold);
    cmd.AddValue("markTh", "red: marking threshold K, packets (MinTh = MaxTh = K)", markTh);
    cmd.AddValue("start", "the flow's start time, s", start);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("seed", "RNG run number (seed 1)", seed);
    cmd.Parse(argc, argv);

    bool dctcp = tcp == "dctcp";
    const bool useEcn = ecn || dctcp; // not `ecn`: the second Parse below sets it again
    TypeId tcpType;
    if (tcp == "newreno")
        tcpType = TcpNewReno::GetTypeId();
    else if (tcp == "cubic")
        tcpType = TcpCubic::GetTypeId();
    else if (dctcp)
        tcpType = TcpDctcp::GetTypeId();
    else if (tcp == "bbr")
        tcpType = TcpBbr::GetTypeId();
    else if (tcp == "ledbat")
        tcpType = TcpLedbat::GetTypeId();
    else
    {
        std::fprintf(stderr, "--tcp: expected newreno, cubic, dctcp, bbr or ledbat, got %s\n",
                     tcp.c_str());
        return 2;
    }
    if (queue != "droptail" && queue != "codel" && queue != "red")
    {
        std::fprintf(stderr, "--queue: expected droptail, codel or red, got %s\n", queue.c_str());
        return 2;
    }
    if (limit < 1 || duration <= 0 || start < 0 || start >= duration || markTh <= 0)
    {
        std::fprintf(stderr, "expected --limit >= 1, 0 <= --start < --duration, --markTh > 0\n");
        return 2;
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tcpType));
    // The one departure from ns-3's defaults: 4 MiB send and receive buffers (ns-3: 128 KiB),
    // so that the receive window never limits the flow (a window-limited BBR counts its
    // samples as application limited and never leaves STARTUP) and cwnd is the only limit.
    // Equal sizes: a send buffer larger than the receive buffer crashes ns-3.37 on a loss.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4u << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4u << 20));
    if (useEcn)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    }
    cmd.Parse(argc, argv); // --ns3::Type::Attribute=value wins over the above

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    std::setvbuf(stdout, nullptr, _IOFBF, 1 << 20);

    NodeContainer nodes; // S, R1, R2, D
    nodes.Create(4);
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer sR1 = access.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer r1R2 = bottleneck.Install(nodes.Get(1), nodes.Get(2));
    NetDeviceContainer r2D = access.Install(nodes.Get(2), nodes.Get(3));
    InternetStackHelper stack;
    stack.Install(nodes);

    // Queue discs before addresses, so that ns-3 does not install its default FqCoDel.
    QueueSizeValue maxSize(QueueSize(std::to_string(limit) + "p"));
    TrafficControlHelper bn;
    if (queue == "droptail")
    {
        bn.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", maxSize);
    }
    else if (queue == "codel")
    {
        bn.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", maxSize, "UseEcn",
                            BooleanValue(useEcn), "CeThreshold",
                            TimeValue(dctcp ? Time(ceThreshold) : Time::Max()));
    }
    else
    {
        bn.SetRootQueueDisc("ns3::RedQueueDisc", "MinTh", DoubleValue(markTh), "MaxTh",
                            DoubleValue(markTh), "QW", DoubleValue(1.0), "MaxSize", maxSize,
                            "UseEcn", BooleanValue(useEcn), "UseHardDrop", BooleanValue(false),
                            "LinkBandwidth", DataRateValue(DataRate(bottleneckRate)),
                            "LinkDelay", TimeValue(Time(bottleneckDelay)));
    }
    Ptr<QueueDisc> q = bn.Install(r1R2.Get(0)).Get(0);
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize("1000p")));
    fifo.Install(sR1);
    fifo.Install(r1R2.Get(1));
    fifo.Install(r2D);

    Ipv4AddressHelper ip;
    ip.SetBase("10.1.1.0", "255.255.255.0");
    ip.Assign(sR1);
    ip.SetBase("10.1.2.0", "255.255.255.0");
    ip.Assign(r1R2);
    ip.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer dIf = ip.Assign(r2D);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sink = sinkHelper.Install(nodes.Get(3));
    sink.Start(Seconds(0));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dIf.GetAddress(1), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    ApplicationContainer app = bulk.Install(nodes.Get(0));
    app.Start(Seconds(start));
    // Just after StartApplication has made the socket; cwnd and ssthresh are set when the
    // SYN-ACK arrives (TcpSocketBase::DoForwardUp's option processing), an RTT later.
    Simulator::Schedule(Seconds(start) + NanoSeconds(1), &TraceSocket, app.Get(0));

    q->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&OnU32, "qlen"));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDrop));
    q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));

    BbrModeLog bbrLog;
    std::streambuf* clogBuf = nullptr;
    if (tcp == "bbr")
    {
        clogBuf = std::clog.rdbuf(&bbrLog);
        LogComponentEnable("TcpBbr", LOG_LEVEL_DEBUG);
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    if (clogBuf)
    {
        std::clog.flush();
        std::clog.rdbuf(clogBuf);
    }

    const QueueDisc::Stats& st = q->GetStats();
    std::printf("tcp %s\n", tcp.c_str());
    std::printf("queue %s\n", queue.c_str());
    std::printf("duration %g\n", duration);
    std::printf("rx_bytes %llu\n",
                (unsigned long long)DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx());
    std::printf("bottleneck_drops %u\n", st.nTotalDroppedPackets);
    std::printf("bottleneck_marks %u\n", st.nTotalMarkedPackets);
    std::printf("bottleneck_sent %u\n", st.nTotalSentPackets);
    std::printf("events %llu\n", (unsigned long long)Simulator::GetEventCount());
    std::printf("wall_s %.6f\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    Simulator::Destroy();
    return 0;
}
