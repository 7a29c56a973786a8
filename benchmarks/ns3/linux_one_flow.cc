// One NewReno (or `--tcp` CUBIC, DCTCP...) flow through a DropTail bottleneck in ns-3.37, for the value-for-value check
// of aqmsim's `tcp.stack = "linux"` (tests/test_stack_linux_ns3.py, docs/tcp/stack-linux.md).
//
//   S --(100 Mb/s, 1 ms)-- R --(rate, delay; DropTail `limit` packets, no queue disc)-- D
//
// ns-3's defaults except: SegmentSize 1000, timestamps off (`--timestamps=1` turns ns-3's
// default back on: aqmsim's `tcp.timestamps`), send and
// receive buffers `buf` bytes (large: the flow is then limited by cwnd, not the receive
// window, which ns-3 fills with sub-MSS segments). The bottleneck's traffic-control layer
// is removed so the device queue (which holds `limit` packets beside the one on the wire)
// is the only queue. Prints "cwnd <t> <bytes>", "ssthresh <t> <bytes>" and
// "state <t> <TcpCongState_t>" lines, from the sender's trace sources (`--tx=1`: also
// "tx <t> <seq>" for every data segment the socket sends; `--drop=...`: deterministic losses).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <set>
#include <sstream>

using namespace ns3;

static void
OnCwnd(uint32_t, uint32_t now)
{
    std::cout << "cwnd " << Simulator::Now().GetSeconds() << " " << now << "\n";
}

static void
OnSsthresh(uint32_t, uint32_t now)
{
    std::cout << "ssthresh " << Simulator::Now().GetSeconds() << " " << now << "\n";
}

static void
OnState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    std::cout << "state " << Simulator::Now().GetSeconds() << " " << now << "\n";
}

static bool g_tx = false;
static bool g_flight = false;

static void
OnFlight(uint32_t, uint32_t now)
{
    std::cout << "flight " << Simulator::Now().GetSeconds() << " " << now << "\n";
}

static void
OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        std::cout << "tx " << Simulator::Now().GetSeconds() << " " << h.GetSequenceNumber().GetValue()
                  << "\n";
    }
}

// `--drop=K1,K2,...`: the router's access-side device loses the first transmission of data
// segments K1, K2... (0-based: TCP sequence 1 + K * 1000) before they reach the bottleneck,
// as aqmsim's `drop_seqs` does; retransmissions pass.
class FirstTxDrop : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("FirstTxDrop").SetParent<ErrorModel>();
        return tid;
    }

    std::set<uint32_t> drop;

  private:
    std::set<uint32_t> m_seen;

    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        c->RemoveHeader(tcp);
        if (c->GetSize() == 0)
        {
            return false;
        }
        uint32_t k = (tcp.GetSequenceNumber().GetValue() - 1) / 1000;
        return m_seen.insert(k).second && drop.count(k) > 0;
    }

    void DoReset() override
    {
    }
};

static void
Connect()
{
    const std::string s = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(s + "CongestionWindow", MakeCallback(&OnCwnd));
    Config::ConnectWithoutContext(s + "SlowStartThreshold", MakeCallback(&OnSsthresh));
    Config::ConnectWithoutContext(s + "CongState", MakeCallback(&OnState));
    if (g_tx)
    {
        Config::ConnectWithoutContext(s + "Tx", MakeCallback(&OnTx));
    }
    if (g_flight)
    {
        Config::ConnectWithoutContext(s + "BytesInFlight", MakeCallback(&OnFlight));
    }
}

int
main(int argc, char** argv)
{
    double duration = 10;
    uint32_t buf = 4000000;
    uint32_t limit = 50;
    std::string rate = "10Mbps";
    std::string delay = "20ms";
    std::string tcp = "ns3::TcpNewReno";
    double markTh = 0;
    bool timestamps = false;
    std::string ascii = "";
    std::string pcap;
    CommandLine cmd;
    cmd.AddValue("ascii", "if set: an ns-3 ASCII trace of the bottleneck link to this file", ascii);
    cmd.AddValue("tx", "also print \"tx <t> <seq>\" for every data segment sent", g_tx);
    cmd.AddValue("timestamps", "TcpSocketBase::Timestamp (RFC 7323 option; off unless given)", timestamps);
    cmd.AddValue("pcap", "if set: pcap traces of the bottleneck's two devices, <pcap>-<node>-<dev>.pcap",
                 pcap);
    cmd.AddValue("markTh", "if > 0: a RED step marker (QW 1, MinTh = MaxTh = markTh packets, ECN) "
                 "as the bottleneck's queue disc over a 1-packet device queue", markTh);
    cmd.AddValue("tcp", "congestion control (TypeId name)", tcp);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("buf", "send and receive buffer, bytes", buf);
    cmd.AddValue("limit", "bottleneck device queue, packets", limit);
    cmd.AddValue("rate", "bottleneck rate", rate);
    cmd.AddValue("delay", "bottleneck one-way delay", delay);
    std::string drops;
    cmd.AddValue("drop", "comma-separated data segments (0-based) whose first transmission is lost "
                 "before the bottleneck", drops);
    cmd.AddValue("flight", "also print \"flight <t> <bytes>\" on every change of BytesInFlight", g_flight);
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(tcp));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buf));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buf));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));

    NodeContainer nodes;
    nodes.Create(3);
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(rate));
    bottleneck.SetChannelAttribute("Delay", StringValue(delay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize",
                        StringValue(markTh > 0 ? "1p" : std::to_string(limit) + "p"));
    NetDeviceContainer a = access.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer b = bottleneck.Install(nodes.Get(1), nodes.Get(2));
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper ip;
    ip.SetBase("10.1.1.0", "255.255.255.0");
    ip.Assign(a);
    ip.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer bi = ip.Assign(b);
    TrafficControlHelper().Uninstall(b);
    if (!drops.empty())
    {
        Ptr<FirstTxDrop> em = CreateObject<FirstTxDrop>();
        std::stringstream ss(drops);
        for (std::string k; std::getline(ss, k, ',');)
        {
            em->drop.insert(std::stoul(k));
        }
        a.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    if (markTh > 0)
    {
        TrafficControlHelper red;
        red.SetRootQueueDisc("ns3::RedQueueDisc", "MinTh", DoubleValue(markTh), "MaxTh",
                             DoubleValue(markTh), "QW", DoubleValue(1.0), "MaxSize",
                             QueueSizeValue(QueueSize(std::to_string(limit) + "p")), "UseEcn",
                             BooleanValue(true), "UseHardDrop", BooleanValue(false),
                             // not gentle: every packet arriving to >= MaxTh queued is marked
                             // (gentle RED, ns-3's default, marks at random between MaxTh and
                             // 2 MaxTh, with MinTh = MaxTh too)
                             "Gentle", BooleanValue(false),
                             "LinkBandwidth", DataRateValue(DataRate(rate)), "LinkDelay",
                             TimeValue(Time(delay)));
        red.Install(b.Get(0));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    if (!ascii.empty())
    {
        AsciiTraceHelper at;
        bottleneck.EnableAsciiAll(at.CreateFileStream(ascii));
    }
    if (!pcap.empty())
    {
        bottleneck.EnablePcap(pcap, b);
    }

    BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(bi.GetAddress(1), 9));
    source.SetAttribute("MaxBytes", UintegerValue(0));
    ApplicationContainer apps = source.Install(nodes.Get(0));
    apps.Start(Seconds(0));
    apps.Stop(Seconds(duration));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
    sink.Install(nodes.Get(2)).Start(Seconds(0));

    Simulator::Schedule(MicroSeconds(100), &Connect); // the socket exists once the app starts
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}
