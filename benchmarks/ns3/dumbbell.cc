// The aqmsim speed benchmark's dumbbell in ns-3 (Debian's libns3-dev, ns-3.37).
//
// Built and run by the benchmark (benchmarks/bench/, `make bench`; see benchmarks/ns3/build.sh); by hand:
//   benchmarks/ns3/build.sh            # prints the binary: target/ns3-bench/dumbbell-<version>
//   target/ns3-bench/dumbbell-3.37 --flows=100 --bottleneck=100Mbps --duration=60 --seed=1
//   target/ns3-bench/dumbbell-3.37 --PrintHelp
//
// The same dumbbell as benchmarks/scenarios/*.toml:
//   S_i --100 Mb/s, 1 ms-- R1 ==bottleneck, 10 ms, RED== R2 --100 Mb/s, 1 ms-- D_i
// * RED on R1's bottleneck device (RedQueueDisc), defaults as the benchmark's scenarios
//   (the bench passes each scenario's values): min_th 30, max_th 90, max_p 0.1 (LInterm
//   10), w_q 0.002, limit 300 packets, packet mode, not gentle, wait, no ECN, hard drop
//   above max_th, mean packet size 1000 bytes for the idle-time correction. The device
//   below it holds one packet, so RED is the queue (the usual ns-3 RED set-up).
// * --queue=codel|pie|fq_codel|fq_pie (issue 14; fq_pie issue 25) puts that disc at the
//   bottleneck instead, with ns-3's defaults except: MaxSize = --limit packets (default
//   1000 for CoDel and PIE, 10240 for FQ-CoDel and FQ-PIE as ns-3; 300 for RED as
//   before), UseEcn = --ecn, FQ-CoDel's and FQ-PIE's quantum = the device MTU (ns-3
//   does that itself). PIE's default 25-packet buffer is
//   too small for a 100 Mb/s dumbbell, hence 1000.
// * --tcp=cubic|dctcp picks TcpCubic / TcpDctcp (HyStart = --hystart, ns-3's default on).
//   --ecn=1 sets TcpSocketBase::UseEcn=On and the disc's UseEcn. DCTCP implies ECN and a
//   shallow marking threshold, as ns-3's tcp.rst (DCTCP section) and
//   examples/tcp/dctcp-example.cc set it up: RED as a step marker (QW 1, MinTh = MaxTh =
//   --markTh packets, default 16 as tcp.rst; UseEcn, UseHardDrop off), CoDel and FQ-CoDel
//   with UseEcn and CeThreshold = --ceThreshold (default 1 ms, tcp.rst); PIE has no CE
//   threshold in 3.37 outside L4S, so it just marks (below its 10 % MarkEcnThreshold).
// * Every other queue: FIFO 1000 packets (replacing ns-3's default FqCoDel).
// * TCP: one BulkSend per source, 1000-byte segments, one ACK per segment
//   (DelAckCount 1), initial window 2, receive window = `--window` segments, initial
//   ssthresh = the window, no timestamps (40-byte TCP/IP header, as ns-2), minimum RTO
//   0.2 s, 10 ms clock granularity (ns-2's tcpTick_), NewReno congestion control with
//   classic (Reno) fast recovery, and SACK (ns-3's default). Without SACK, ns-3.37's loss
//   recovery retransmits far more than ns-2's Reno does (10 flows: 63 % utilisation, a
//   third of it duplicates; ns-2 and aqmsim: 83-85 %); with SACK its utilisation and drops
//   are close to theirs. --ns3::TcpSocketBase::Sack=false shows the other behaviour.
// * Starts uniform in [--startMin, --startMax] s (ns-3's RNG, run number = --seed); the
//   flows run to --duration.
// * Routing (--routing): "static" (default): each leaf has a default route to its router
//   and each router one /9 route to the other side; "global" (Ipv4GlobalRoutingHelper,
//   as ns-3's examples do: every node holds a route to each of the 2N+1 subnets and scans
//   them per packet) or "nix" (Nix-vector). Static routing is the fastest at 1000 flows.
//   Routers do not look for a packet's destination on every interface (WeakEsModel false).
//   Any ns-3 attribute can be changed on the command line: --ns3::Type::Attribute=value.
// * Known ns-3.37 crash: with a send buffer larger than the receive buffer TcpSocketBase
//   crashes on the first loss (TcpRateLinux::SkbSent on a bad TcpTxItem), so both buffers
//   are window x segment bytes.
//
// * --flowFile=PATH (issue 16, the RFC 7928 suite's anchor) describes each flow on one line
//   instead of --flows and the random starts:
//     tcp <start s> <stop s> <access delay s> <egress delay s> <newreno|cubic> <initial window>
//     cbr <start s> <stop s> <access delay s> <egress delay s> <rate b/s> <packet bytes on the wire>
//   The delays are the one-way delays of the flow's own access and egress links (RTT
//   fairness); the congestion control is set per source node; the initial window per flow
//   (ns-3 reads InitialCwnd when BulkSend makes its socket, so the default is set just
//   before each flow starts; two flows starting at the same instant with different initial
//   windows are refused). A cbr line is an unresponsive UDP sender (OnOffApplication, always
//   on): <packet bytes> on the wire = UDP payload + 28 bytes of UDP/IP header, sent every
//   packet x 8 / rate s, so the wire rate is <rate>; its `flow` line counts UDP payload.
// * --initCwnd (default 2, as before): every TCP flow's initial window without --flowFile.
// * --ns3Defaults=1 (issue 24, the linux stack's network table) leaves ns-3.37's TCP
//   defaults alone instead of the ns-2-like set-up above: PRR recovery, DelAckCount 2,
//   MinRto 1 s, ClockGranularity 1 ms, InitialCwnd 10 (--initCwnd and a flow file's
//   window are ignored), timestamps on, 128 KiB send and receive buffers (so --window is
//   ignored), InitialSlowStartThreshold unlimited, SACK on. Only the segment size
//   (--segment), the congestion control (--tcp) and ECN are still set. --tcp=bbr
//   (TcpBbr) and a flow file's dctcp / bbr flows need it.
//
// * --cwndTrace=FILE writes every sender's cwnd, ssthresh (segments) and congestion state
//   changes to FILE ("c|s|st <t> <flow> <value>"; the states are ns-3's TcpCongState_t
//   numbers: 0 open, 1 disorder, 2 cwr, 3 recovery, 4 loss). Off by default; the printed
//   results do not change with it.
//
// At the end it prints `key value` lines: the bottleneck's packets (arrivals, departures,
// drops by reason), utilisation (IP bytes sent through the bottleneck disc x 8 / (rate x
// measured time): the 2-byte PPP header is not counted), bytes received by the sinks,
// events executed, and the wall time of set-up and of the run. Everything but events and
// wall times counts from --warmup s on (default 0: the whole run): the disc's statistics
// are differenced against a snapshot taken at the warm-up. Besides: `drops.<reason> n`
// and `marks.<reason> n` for each of the disc's reasons (spaces as '_'), bottleneck_marks,
// qdelay_mean_s / qdelay_p99_s (the disc's SojournTime trace, one sample per packet
// leaving its queue, including those CoDel then drops; p99 = the ceil(0.99 n)-th smallest,
// rounded down to the microsecond), qdelay_samples, and `flow <i> <bps>`
// per flow (bytes its sink received after the warm-up x 8 / measured time).
// txdelay_mean_s / txdelay_p99_s / txdelay_samples measure the queueing delay as aqmsim
// does: from the packet's entering the disc to the start of its transmission on the
// bottleneck (the device's PhyTxBegin), one sample per packet transmitted (not those CoDel
// drops). The disc's sojourn ends earlier, when the packet moves to the device's one-packet
// queue, so qdelay_* is about one transmission time smaller for a packet that waited.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/nix-vector-routing-module.h"
#include "ns3/point-to-point-layout-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <string>
#include <vector>

using namespace ns3;

// The IPv4 address of the far end of a point-to-point device.
static Ipv4Address
PeerAddress(Ptr<NetDevice> dev)
{
    Ptr<Channel> ch = dev->GetChannel();
    Ptr<NetDevice> peer = ch->GetDevice(0) == dev ? ch->GetDevice(1) : ch->GetDevice(0);
    Ptr<Ipv4> ip = peer->GetNode()->GetObject<Ipv4>();
    return ip->GetAddress(ip->GetInterfaceForDevice(peer), 0).GetLocal();
}

// Interface index of a device on its node.
static uint32_t
IfIndex(Ptr<NetDevice> dev)
{
    return dev->GetNode()->GetObject<Ipv4>()->GetInterfaceForDevice(dev);
}

// Delays after the warm-up: their exact sum and a histogram in 1-us bins, so memory stays
// small at any packet count (the bench measures this program's RSS).
struct DelayHist
{
    std::vector<uint64_t> bins;
    uint64_t samples = 0;
    long double sum = 0;

    void Add(int64_t ns)
    {
        size_t bin = size_t(ns / 1000);
        if (bin >= bins.size())
        {
            bins.resize(bin + 1024, 0);
        }
        ++bins[bin];
        ++samples;
        sum += ns;
    }

    double Mean() const
    {
        return samples > 0 ? double(sum / samples) * 1e-9 : 0.0;
    }

    // The ceil(0.99 n)-th smallest, rounded down to the microsecond.
    double P99() const
    {
        uint64_t rank = uint64_t(std::ceil(0.99 * samples));
        uint64_t seen = 0;
        for (size_t b = 0; samples > 0 && b < bins.size(); ++b)
        {
            seen += bins[b];
            if (seen >= rank)
            {
                return b * 1e-6;
            }
        }
        return 0.0;
    }
};

static DelayHist g_sojourn; // the disc's SojournTime trace
static DelayHist g_txDelay; // entering the disc -> start of transmission (aqmsim's measure)
static bool g_measuring = false;

static void
OnSojourn(Time t)
{
    if (g_measuring)
    {
        g_sojourn.Add(t.GetNanoSeconds());
    }
}

// Packets that left the disc and have not started transmission yet: uid -> the time they
// entered the disc (the item's timestamp, set by QueueDisc::Enqueue).
static std::unordered_map<uint64_t, int64_t> g_leftDisc;

static void
OnDiscDequeue(Ptr<const QueueDiscItem> item)
{
    g_leftDisc[item->GetPacket()->GetUid()] = item->GetTimeStamp().GetNanoSeconds();
}

static void
OnDiscDrop(Ptr<const QueueDiscItem> item)
{
    g_leftDisc.erase(item->GetPacket()->GetUid()); // dropped after dequeue (CoDel)
}

static void
OnTxBegin(Ptr<const Packet> p)
{
    auto it = g_leftDisc.find(p->GetUid());
    if (it == g_leftDisc.end())
    {
        return;
    }
    if (g_measuring)
    {
        g_txDelay.Add(Simulator::Now().GetNanoSeconds() - it->second);
    }
    g_leftDisc.erase(it);
}

// One line of --flowFile.
struct FlowSpec
{
    bool cbr = false;
    double start = 0;
    double stop = 0;
    double accessDelay = 0;
    double egressDelay = 0;
    std::string cc;          // tcp: newreno | cubic | dctcp | bbr
    uint32_t initCwnd = 2;   // tcp
    double rate = 0;         // cbr: b/s on the wire
    uint32_t wireBytes = 0;  // cbr: packet size on the wire
};

// Reads --flowFile; an empty vector and a message on stderr when a line is bad.
static std::vector<FlowSpec>
ReadFlowFile(const std::string& path)
{
    std::vector<FlowSpec> out;
    std::ifstream in(path);
    if (!in)
    {
        std::fprintf(stderr, "--flowFile: cannot read %s\n", path.c_str());
        return {};
    }
    std::string line;
    for (size_t n = 1; std::getline(in, line); ++n)
    {
        std::istringstream ls(line);
        std::string kind;
        if (!(ls >> kind) || kind[0] == '#')
        {
            continue;
        }
        FlowSpec f;
        f.cbr = kind == "cbr";
        bool ok = (kind == "tcp" || kind == "cbr") &&
                  (ls >> f.start >> f.stop >> f.accessDelay >> f.egressDelay);
        if (ok && f.cbr)
        {
            ok = bool(ls >> f.rate >> f.wireBytes) && f.rate > 0 && f.wireBytes > 28;
        }
        else if (ok)
        {
            ok = bool(ls >> f.cc >> f.initCwnd) &&
                 (f.cc == "newreno" || f.cc == "cubic" || f.cc == "dctcp" || f.cc == "bbr") &&
                 f.initCwnd >= 1;
        }
        ok = ok && f.start >= 0 && f.stop > f.start && f.accessDelay >= 0 && f.egressDelay >= 0;
        if (!ok)
        {
            std::fprintf(stderr,
                         "--flowFile %s line %zu: expected 'tcp <start> <stop> <access delay> "
                         "<egress delay> newreno|cubic|dctcp|bbr <initial window >= 1>' or 'cbr <start> "
                         "<stop> <access delay> <egress delay> <rate > 0> <wire bytes > 28>', "
                         "times in s, stop > start\n",
                         path.c_str(), n);
            return {};
        }
        out.push_back(f);
    }
    if (out.empty())
    {
        std::fprintf(stderr, "--flowFile %s: no flows\n", path.c_str());
    }
    return out;
}

// The congestion control named by --tcp or a flow file's line.
static TypeId
CcType(const std::string& cc)
{
    return cc == "cubic"   ? TcpCubic::GetTypeId()
           : cc == "dctcp" ? TcpDctcp::GetTypeId()
           : cc == "bbr"   ? TcpBbr::GetTypeId()
                           : TcpNewReno::GetTypeId();
}

static void
SetInitialCwnd(uint32_t segments)
{
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(segments));
}

// --cwndTrace=FILE: every sender's congestion window, slow-start threshold (segments) and
// congestion state, one line per change: "c|s|st <t s> <flow> <value>" (st: ns-3's
// TcpCongState_t number: 0 open, 1 disorder, 2 cwr, 3 recovery, 4 loss).
static FILE* g_cwndFile = nullptr;
static uint32_t g_segment = 1000;

static void
OnCwnd(uint32_t flow, uint32_t, uint32_t now)
{
    std::fprintf(g_cwndFile, "c %.6f %u %u\n", Simulator::Now().GetSeconds(), flow, now / g_segment);
}

static void
OnSsThresh(uint32_t flow, uint32_t, uint32_t now)
{
    std::fprintf(g_cwndFile, "s %.6f %u %u\n", Simulator::Now().GetSeconds(), flow, now / g_segment);
}

static void
OnCongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    std::fprintf(g_cwndFile, "st %.6f %u %d\n", Simulator::Now().GetSeconds(), flow, int(now));
}

// Connects the traces of the socket the flow's BulkSend made when it started.
static void
TraceFlow(Ptr<Application> app, uint32_t flow)
{
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, flow));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsThresh, flow));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, flow));
}

static std::string
Key(const std::string& reason)
{
    std::string k = reason;
    std::replace(k.begin(), k.end(), ' ', '_');
    return k;
}

// What the disc's per-reason counters gained since the snapshot.
template <typename Map>
static std::map<std::string, uint32_t>
Gained(const Map& now, const Map& then)
{
    std::map<std::string, uint32_t> out;
    for (const auto& kv : now)
    {
        auto it = then.find(kv.first);
        out[kv.first] = kv.second - (it == then.end() ? 0 : it->second);
    }
    return out;
}

static double
WallSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int
main(int argc, char* argv[])
{
    auto t0 = std::chrono::steady_clock::now();
    uint32_t flows = 100;
    std::string bottleneckRate = "100Mbps";
    std::string bottleneckDelay = "10ms";
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    double duration = 60.0;
    uint32_t seed = 1;
    uint32_t segment = 1000;
    uint32_t window = 100;
    uint32_t otherQueue = 1000;
    double minTh = 30;
    double maxTh = 90;
    double maxP = 0.1;
    double qw = 0.002;
    uint32_t limit = 0; // 0: the disc's default here (RED 300, CoDel/PIE 1000, FQ-CoDel 10240)
    std::string queue = "red";
    std::string tcp = "newreno";
    bool ecn = false;
    bool hystart = true;
    double warmup = 0.0;
    uint32_t markTh = 16;
    std::string ceThreshold = "1ms";
    std::string recovery = ""; // classic, or prr with --ns3Defaults
    uint32_t meanPktSize = 1000;
    bool gentle = false;
    bool wait = true;
    double startMin = 0.0;
    double startMax = 1.0;
    std::string routing = "static";
    std::string cwndTrace;
    std::string flowFile;
    uint32_t initCwnd = 2;
    bool ns3Defaults = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of bulk TCP flows (sources = sinks = flows)", flows);
    cmd.AddValue("bottleneck", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("access", "access and egress link rate", accessRate);
    cmd.AddValue("accessDelay", "access and egress one-way delay", accessDelay);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("segment", "TCP segment (payload) size, bytes", segment);
    cmd.AddValue("window", "receive window and initial ssthresh, segments", window);
    cmd.AddValue("routing", "static (default routes, the default), global (Ipv4GlobalRoutingHelper) or nix (Nix-vector)", routing);
    cmd.AddValue("minTh", "RED min_th, packets", minTh);
    cmd.AddValue("maxTh", "RED max_th, packets", maxTh);
    cmd.AddValue("maxP", "RED max_p (LInterm = 1/max_p)", maxP);
    cmd.AddValue("qw", "RED queue weight w_q", qw);
    cmd.AddValue("limit", "bottleneck buffer, packets (0: RED 300, CoDel/PIE 1000, FQ-CoDel 10240)", limit);
    cmd.AddValue("queue", "bottleneck disc: red (default), codel, pie, fq_codel or fq_pie", queue);
    cmd.AddValue("tcp", "newreno (default), cubic, dctcp or bbr (bbr: with --ns3Defaults)", tcp);
    cmd.AddValue("ecn", "TCP UseEcn On and the disc's UseEcn (dctcp: always)", ecn);
    cmd.AddValue("hystart", "CUBIC HyStart (ns-3's default: on)", hystart);
    cmd.AddValue("recovery", "loss recovery: classic (default) or prr (--ns3Defaults: prr)", recovery);
    cmd.AddValue("ns3Defaults", "leave ns-3's TCP defaults alone (PRR, DelAckCount 2, MinRto 1 s, IW 10, timestamps, 128 KiB buffers)", ns3Defaults);
    cmd.AddValue("warmup", "statistics from this time on, s", warmup);
    cmd.AddValue("markTh", "DCTCP with RED: marking threshold K, packets (MinTh = MaxTh)", markTh);
    cmd.AddValue("ceThreshold", "DCTCP with CoDel/FQ-CoDel: CeThreshold", ceThreshold);
    cmd.AddValue("meanPktSize", "RED mean packet size (idle-time correction), bytes", meanPktSize);
    cmd.AddValue("gentle", "gentle RED", gentle);
    cmd.AddValue("wait", "RED wait option", wait);
    cmd.AddValue("startMin", "flows start uniformly in [startMin, startMax] s", startMin);
    cmd.AddValue("startMax", "flows start uniformly in [startMin, startMax] s", startMax);
    cmd.AddValue("cwndTrace", "write every sender's cwnd, ssthresh and state changes to this file", cwndTrace);
    cmd.AddValue("otherQueue", "FIFO limit of every other queue, packets", otherQueue);
    cmd.AddValue("flowFile", "one line per flow (tcp|cbr <start> <stop> <access delay> <egress delay> ...); replaces --flows and the random starts", flowFile);
    cmd.AddValue("initCwnd", "initial window of every TCP flow without --flowFile, segments", initCwnd);
    cmd.Parse(argc, argv);

    std::vector<FlowSpec> specs;
    if (!flowFile.empty())
    {
        specs = ReadFlowFile(flowFile);
        if (specs.empty())
        {
            return 2;
        }
        flows = uint32_t(specs.size());
        // ns-3 reads the initial window when a flow's socket is made (see SetInitialCwnd's
        // events below): flows starting at the same instant must agree on it.
        std::map<int64_t, uint32_t> iwAt;
        for (const FlowSpec& f : specs)
        {
            if (f.cbr)
            {
                continue;
            }
            auto it = iwAt.emplace(Seconds(f.start).GetTimeStep(), f.initCwnd).first;
            if (it->second != f.initCwnd)
            {
                std::fprintf(stderr, "--flowFile: two TCP flows start at %g s with different "
                                     "initial windows (not supported)\n", f.start);
                return 2;
            }
        }
    }

    bool dctcp = tcp == "dctcp";
    ecn = ecn || dctcp;
    bool flowFileNeedsDefaults = false;
    for (const FlowSpec& f : specs)
    {
        flowFileNeedsDefaults = flowFileNeedsDefaults || f.cc == "dctcp" || f.cc == "bbr";
        dctcp = dctcp || f.cc == "dctcp";
    }
    ecn = ecn || dctcp;
    if (!ns3Defaults && (tcp == "bbr" || flowFileNeedsDefaults))
    {
        std::fprintf(stderr, "--tcp=bbr and a flow file's dctcp or bbr flows need --ns3Defaults=1\n");
        return 2;
    }
    if (recovery.empty())
    {
        recovery = ns3Defaults ? "prr" : "classic";
    }
    if ((tcp != "newreno" && tcp != "cubic" && !dctcp && tcp != "bbr") ||
        (queue != "red" && queue != "codel" && queue != "pie" && queue != "fq_codel" &&
         queue != "fq_pie") ||
        (recovery != "classic" && recovery != "prr") || warmup < 0 || warmup >= duration)
    {
        std::fprintf(stderr, "expected --tcp=newreno|cubic|dctcp|bbr, --queue=red|codel|pie|fq_codel|fq_pie, "
                             "--recovery=classic|prr, 0 <= --warmup < --duration\n");
        return 2;
    }
    if (limit == 0)
    {
        limit = queue == "red" ? 300 : (queue == "fq_codel" || queue == "fq_pie") ? 10240 : 1000;
    }

    // ------------------------------------------------------------------ TCP
    TypeId tcpType = CcType(tcp);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tcpType));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(ecn ? TcpSocketState::On : TcpSocketState::Off));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    if (!ns3Defaults)
    {
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
        Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                           UintegerValue(window * segment));
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window * segment));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(window * segment));
        Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
        Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
        Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(0.2)));
        Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(10)));
    }
    // A router accepts as its own only packets addressed to the interface they came in on:
    // with the weak model ns-3 scans every interface of R1 and R2 (1001 with 1000 flows)
    // for every packet forwarded.
    Config::SetDefault("ns3::Ipv4::WeakEsModel", BooleanValue(false));

    // Any --ns3::Type::Attribute=value given on the command line wins over the above.
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // ------------------------------------------------------------------ topology
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointDumbbellHelper d(flows, access, flows, access, bottleneck);

    InternetStackHelper stack;
    Ipv4NixVectorHelper nix;
    if (routing == "nix")
    {
        stack.SetRoutingHelper(nix);
    }
    else if (routing != "global" && routing != "static")
    {
        std::fprintf(stderr, "--routing: expected nix or global, got %s\n", routing.c_str());
        return 2;
    }
    d.InstallStack(stack);
    for (uint32_t i = 0; i < specs.size(); ++i)
    {
        // Each leaf's device 0 is its link to the router.
        d.GetLeft(i)->GetDevice(0)->GetChannel()->SetAttribute(
            "Delay", TimeValue(Seconds(specs[i].accessDelay)));
        d.GetRight(i)->GetDevice(0)->GetChannel()->SetAttribute(
            "Delay", TimeValue(Seconds(specs[i].egressDelay)));
        if (!specs[i].cbr)
        {
            TypeId cc = CcType(specs[i].cc);
            d.GetLeft(i)->GetObject<TcpL4Protocol>()->SetAttribute("SocketType", TypeIdValue(cc));
        }
    }

    // Queue discs before addresses, so that ns-3 does not install its default FqCoDel.
    Ptr<NetDevice> bnDev = d.GetLeft()->GetDevice(0); // the routers' link is made first
    {
        Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(bnDev);
        Ptr<Channel> ch = p2p ? p2p->GetChannel() : nullptr;
        if (!ch || ch->GetDevice(1)->GetNode() != d.GetRight())
        {
            std::fprintf(stderr, "R1's device 0 is not the bottleneck\n");
            return 2;
        }
    }
    QueueSizeValue maxSize(QueueSize(std::to_string(limit) + "p"));
    Time ceTh = dctcp ? Time(ceThreshold) : Time::Max();
    TrafficControlHelper red;
    if (queue == "red" && dctcp)
    {
        // ns-3's DCTCP set-up (tcp.rst): RED on the instantaneous queue, marking above K.
        red.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MinTh", DoubleValue(markTh),
                             "MaxTh", DoubleValue(markTh),
                             "QW", DoubleValue(1.0),
                             "MaxSize", maxSize,
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "MeanPktSize", UintegerValue(meanPktSize),
                             "LinkBandwidth", DataRateValue(DataRate(bottleneckRate)),
                             "LinkDelay", TimeValue(Time(bottleneckDelay)));
    }
    else if (queue == "red")
    {
        red.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MinTh", DoubleValue(minTh),
                             "MaxTh", DoubleValue(maxTh),
                             "LInterm", DoubleValue(1.0 / maxP),
                             "QW", DoubleValue(qw),
                             "MaxSize", maxSize,
                             "Gentle", BooleanValue(gentle),
                             "Wait", BooleanValue(wait),
                             "UseEcn", BooleanValue(ecn),
                             "UseHardDrop", BooleanValue(true),
                             "MeanPktSize", UintegerValue(meanPktSize),
                             "LinkBandwidth", DataRateValue(DataRate(bottleneckRate)),
                             "LinkDelay", TimeValue(Time(bottleneckDelay)));
    }
    else if (queue == "codel")
    {
        red.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize", maxSize,
                             "UseEcn", BooleanValue(ecn),
                             "CeThreshold", TimeValue(ceTh));
    }
    else if (queue == "fq_codel")
    {
        red.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", maxSize,
                             "UseEcn", BooleanValue(ecn),
                             "CeThreshold", TimeValue(ceTh));
    }
    else if (queue == "fq_pie")
    {
        red.SetRootQueueDisc("ns3::FqPieQueueDisc", "MaxSize", maxSize, "UseEcn", BooleanValue(ecn));
    }
    else
    {
        red.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize", maxSize,
                             "UseEcn", BooleanValue(ecn));
    }
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                          "MaxSize", QueueSizeValue(QueueSize(std::to_string(otherQueue) + "p")));
    QueueDiscContainer redq = red.Install(bnDev);
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<NetDevice> dev = node->GetDevice(i);
            if (dev != bnDev && DynamicCast<PointToPointNetDevice>(dev))
            {
                fifo.Install(dev);
            }
        }
    }

    d.AssignIpv4Addresses(Ipv4AddressHelper("10.1.0.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.128.0.0", "255.255.255.0"),
                          Ipv4AddressHelper("192.168.0.0", "255.255.255.0"));
    if (routing == "global")
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }
    else if (routing == "static")
    {
        // Leaves: a default route to their router. Routers: the other side's /9.
        Ipv4StaticRoutingHelper srh;
        for (uint32_t i = 0; i < flows; ++i)
        {
            for (Ptr<Node> leaf : {d.GetLeft(i), d.GetRight(i)})
            {
                Ptr<NetDevice> dev = leaf->GetDevice(0);
                srh.GetStaticRouting(leaf->GetObject<Ipv4>())
                    ->SetDefaultRoute(PeerAddress(dev), IfIndex(dev));
            }
        }
        Ptr<NetDevice> bnPeer = bnDev->GetChannel()->GetDevice(1);
        srh.GetStaticRouting(d.GetLeft()->GetObject<Ipv4>())
            ->AddNetworkRouteTo(Ipv4Address("10.128.0.0"), Ipv4Mask("255.128.0.0"),
                                PeerAddress(bnDev), IfIndex(bnDev));
        srh.GetStaticRouting(d.GetRight()->GetObject<Ipv4>())
            ->AddNetworkRouteTo(Ipv4Address("10.0.0.0"), Ipv4Mask("255.128.0.0"),
                                PeerAddress(bnPeer), IfIndex(bnPeer));
    }

    // ------------------------------------------------------------------ traffic
    const uint16_t port = 5000;
    ApplicationContainer sinks;
    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    start->SetAttribute("Min", DoubleValue(startMin));
    start->SetAttribute("Max", DoubleValue(startMax));
    for (uint32_t i = 0; i < flows; ++i)
    {
        if (!specs.empty() && specs[i].cbr)
        {
            // An unresponsive sender: UDP, always on, wire bytes every wire x 8 / rate s.
            const FlowSpec& f = specs[i];
            uint32_t payload = f.wireBytes - 28;
            PacketSinkHelper sink("ns3::UdpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), port + 1));
            ApplicationContainer s = sink.Install(d.GetRight(i));
            s.Start(Seconds(0));
            sinks.Add(s);
            OnOffHelper cbr("ns3::UdpSocketFactory",
                            InetSocketAddress(d.GetRightIpv4Address(i), port + 1));
            cbr.SetConstantRate(DataRate(uint64_t(std::llround(f.rate * payload / f.wireBytes))),
                                payload);
            ApplicationContainer a = cbr.Install(d.GetLeft(i));
            a.Start(Seconds(f.start));
            a.Stop(Seconds(f.stop));
            continue;
        }
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(d.GetRight(i));
        s.Start(Seconds(0));
        sinks.Add(s);
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(d.GetRightIpv4Address(i), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(segment));
        ApplicationContainer a = bulk.Install(d.GetLeft(i));
        double t = specs.empty() ? start->GetValue() : specs[i].start;
        a.Start(Seconds(t));
        a.Stop(Seconds(specs.empty() ? duration : specs[i].stop));
        if (!specs.empty() && !ns3Defaults)
        {
            // Scheduled now, so it runs before the start event (made at t = 0) of the same time.
            Simulator::Schedule(Seconds(t), &SetInitialCwnd, specs[i].initCwnd);
        }
        if (!cwndTrace.empty())
        {
            // Just after StartApplication has made the socket.
            Simulator::Schedule(Seconds(t) + NanoSeconds(1), &TraceFlow, a.Get(0), i);
        }
    }

    // ------------------------------------------------------------------ measuring
    if (!cwndTrace.empty())
    {
        g_segment = segment;
        g_cwndFile = std::fopen(cwndTrace.c_str(), "w");
        if (!g_cwndFile)
        {
            std::fprintf(stderr, "--cwndTrace: cannot write %s\n", cwndTrace.c_str());
            return 2;
        }
    }
    Ptr<QueueDisc> q = redq.Get(0);
    q->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    q->TraceConnectWithoutContext("Dequeue", MakeCallback(&OnDiscDequeue));
    q->TraceConnectWithoutContext("Drop", MakeCallback(&OnDiscDrop));
    bnDev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
    QueueDisc::Stats st0;
    std::vector<uint64_t> rx0(flows, 0);
    auto snapshot = [&]() {
        st0 = q->GetStats();
        for (uint32_t i = 0; i < flows; ++i)
        {
            rx0[i] = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
        }
        g_measuring = true;
    };
    if (warmup > 0)
    {
        Simulator::Schedule(Seconds(warmup), snapshot);
    }
    else
    {
        g_measuring = true;
    }

    double setupWall = WallSince(t0);
    auto t1 = std::chrono::steady_clock::now();
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double runWall = WallSince(t1);

    // ------------------------------------------------------------------ results
    const QueueDisc::Stats& st = q->GetStats();
    // The per-reason maps merge "before enqueue" and "after dequeue" reasons (CoDel drops
    // after dequeue, RED before enqueue); a reason string names one of them.
    std::map<std::string, uint32_t> drops =
        Gained(st.nDroppedPacketsBeforeEnqueue, st0.nDroppedPacketsBeforeEnqueue);
    for (const auto& kv : Gained(st.nDroppedPacketsAfterDequeue, st0.nDroppedPacketsAfterDequeue))
    {
        drops[kv.first] += kv.second;
    }
    std::map<std::string, uint32_t> marks = Gained(st.nMarkedPackets, st0.nMarkedPackets);
    auto reason = [&drops](const char* r) {
        auto it = drops.find(r);
        return it == drops.end() ? 0u : it->second;
    };
    uint64_t rx = 0;
    std::vector<uint64_t> flowRx(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        flowRx[i] = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx() - rx0[i];
        rx += flowRx[i];
    }
    double measured = duration - warmup;
    double rate = DataRate(bottleneckRate).GetBitRate();
    uint64_t sentBytes = st.nTotalSentBytes - st0.nTotalSentBytes;
    std::printf("flows %u\n", flows);
    std::printf("duration %g\n", duration);
    std::printf("warmup %g\n", warmup);
    std::printf("queue %s\n", queue.c_str());
    std::printf("tcp %s\n", tcp.c_str());
    std::printf("ecn %d\n", ecn ? 1 : 0);
    std::printf("bottleneck_arrivals %u\n", st.nTotalReceivedPackets - st0.nTotalReceivedPackets);
    std::printf("bottleneck_departures %u\n", st.nTotalSentPackets - st0.nTotalSentPackets);
    std::printf("bottleneck_drops %u\n", st.nTotalDroppedPackets - st0.nTotalDroppedPackets);
    std::printf("bottleneck_marks %u\n", st.nTotalMarkedPackets - st0.nTotalMarkedPackets);
    if (queue == "red")
    {
        std::printf("bottleneck_drops_early %u\n", reason(RedQueueDisc::UNFORCED_DROP));
        std::printf("bottleneck_drops_forced %u\n", reason(RedQueueDisc::FORCED_DROP));
        std::printf("bottleneck_drops_overflow %u\n", reason(QueueDisc::INTERNAL_QUEUE_DROP));
    }
    for (const auto& kv : drops)
    {
        std::printf("drops.%s %u\n", Key(kv.first).c_str(), kv.second);
    }
    for (const auto& kv : marks)
    {
        std::printf("marks.%s %u\n", Key(kv.first).c_str(), kv.second);
    }
    std::printf("bottleneck_queued_end %u\n", q->GetNPackets());
    std::printf("bottleneck_departure_bytes %llu\n", (unsigned long long)sentBytes);
    std::printf("utilisation %.9f\n", sentBytes * 8.0 / (rate * measured));
    std::printf("qdelay_samples %llu\n", (unsigned long long)g_sojourn.samples);
    std::printf("qdelay_mean_s %.9f\n", g_sojourn.Mean());
    std::printf("qdelay_p99_s %.9f\n", g_sojourn.P99());
    std::printf("txdelay_samples %llu\n", (unsigned long long)g_txDelay.samples);
    std::printf("txdelay_mean_s %.9f\n", g_txDelay.Mean());
    std::printf("txdelay_p99_s %.9f\n", g_txDelay.P99());
    std::printf("sink_rx_bytes %llu\n", (unsigned long long)rx);
    std::printf("goodput_bps %.3f\n", rx * 8.0 / measured);
    for (uint32_t i = 0; i < flows; ++i)
    {
        std::printf("flow %u %.3f\n", i, flowRx[i] * 8.0 / measured);
    }
    std::printf("events %llu\n", (unsigned long long)Simulator::GetEventCount());
    std::printf("setup_wall_s %.6f\n", setupWall);
    std::printf("run_wall_s %.6f\n", runWall);
    Simulator::Destroy();
    if (g_cwndFile)
    {
        std::fclose(g_cwndFile);
    }
    return 0;
}
