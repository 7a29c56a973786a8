// Queue-level replay: one ns-3.37 queue disc fed a scripted sequence of enqueues and
// dequeues, with no network, printing what the disc did (issue 14: aqmsim's own
// disciplines are fed the same script and the two outputs compared line by line).
//
//   benchmarks/ns3/build.sh queue_replay          # prints target/ns3-bench/queue_replay-3.37
//   queue_replay-3.37 --queue=codel --ops=ops.txt [--out=PATH] [--ns3::CoDelQueueDisc::Target=5ms]
//
// Input (--ops; '#' starts a comment; times in integer ns, non-decreasing; ops run in
// file order at their times):
//   e <t_ns> <flow> <bytes> <ect>   enqueue; ids count e-lines from 0; ect 0 Not-ECT,
//                                   1 ECT(0), 2 ECT(1), 3 CE (as aqmsim's replay.rs)
//   d <t_ns>                        one Dequeue() call on the disc
// Output, one line per event in the order it happened:
//   enq <t> <id> <flow> q|m|d       the arrival was queued / queued with CE / dropped
//   drop <t> <id> <flow>            a queued packet was dropped (DropAfterDequeue)
//   mark <t> <id> <flow>            a queued packet got CE at dequeue
//   deq <t> <id> <flow> <ce>        a packet left;  deq <t> - - -  nothing to send
//   prob <t> <p> <qdelay_ns>        PIE only: after every CalculateP()
//   rand <t> <u>                    with --printUniforms: a uniform RED/PIE drew
// --reasons appends the disc's reason string to enq m|d, drop and mark lines;
// --sojourn appends the sojourn time (ns, from the SojournTime trace) to deq lines.
//
// Set-up (see docs/ns3-reference.md):
// * Items are Ipv4QueueDiscItems with a real Ipv4Header (protocol UDP, total length =
//   bytes, ECN from ect: ECT(0)/ECT(1)/CE so QueueDisc::Mark works) over a packet holding a UDP
//   header. Flow f has source 10.0.0.0 + (f + 1), source port 1024 + f % 60000, and one
//   destination 10.255.255.254:5000. Ids follow Packet::GetUid().
// * Decisions come from the root disc's DropBeforeEnqueue / DropAfterDequeue / Mark
//   trace sources (a child's drops and marks reach the root's through
//   QueueDisc::AddQueueDiscClass), not from inference.
// * The disc is created and Initialize()d at t = 0, before the ops are scheduled. Each op
//   is a simulator event at its time, so QueueDisc::Enqueue stamps items with the op's
//   time (it calls SetTimeStamp(Simulator::Now()) after DoEnqueue).
// * FQ-CoDel: by default a FlowNumberFilter returns the flow number f; 3.37's
//   FqCoDelQueueDisc::DoEnqueue takes a filter's class as the flow hash and uses queue
//   (class % Flows) (SetAssociativeHash off). --hash removes the filter: ns-3 then hashes
//   the 5-tuple with Ipv4QueueDiscItem::Hash(Perturbation) (murmur3). Quantum defaults to
//   --quantum=1500 here (3.37 has no Quantum attribute: SetQuantum(), else the device's
//   MTU, and there is no device); FQ-CoDel's UseEcn
//   default is true in ns-3.
// * FQ-PIE: as FQ-CoDel for the quantum, the filter and --hash (3.37's FqPieQueueDisc has
//   the same DoEnqueue classification); each flow queue's child PieQueueDisc is given the
//   disc's uniform stream right after the enqueue that created it (it cannot draw then).
// * FQ-COBALT: as FQ-PIE for the quantum, the filter and --hash (3.37's FqCobaltQueueDisc
//   has the same DoEnqueue classification); each flow queue's child CobaltQueueDisc is given
//   the disc's uniform stream right after the enqueue that created it (BLUE draws only at
//   dequeue).
// * PIE: 3.37 schedules CalculateP at construction (its Supdate attribute is read before
//   it is set, so the first update is at t = 0) and then every Tupdate. An update at the
//   same ns as an op runs after the op (t > 0), before it at t = 0. m_dropProb is private
//   and has no trace source: it is read through an explicit-instantiation accessor right
//   after each update; qdelay is GetQueueDelay() (the last dequeued packet's sojourn, 0
//   when the queue emptied; the departure-rate estimate when UseDequeueRateEstimator).
// * COBALT: BLUE's draws (one per dequeued packet while Pdrop > 0) come from the same
//   replaceable stream as RED's and PIE's.
// * Randomness (RED, PIE, COBALT): MRG32k3a, RngSeedManager seed --seed, run --run; the disc's
//   uniform stream is set with AssignStreams(--stream). --uniforms=PATH replaces the
//   draws by the numbers in PATH (one a line, in draw order) so another implementation
//   can be fed the very same uniforms.

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// ------------------------------------------------------------------ private members
// The standard explicit-instantiation accessor ([temp.explicit]: access is not checked
// for names in an explicit instantiation): reads PIE's m_dropProb and swaps the disc's
// uniform stream, which 3.37 exposes neither as an attribute nor as a trace source.
template <typename Tag, typename Tag::type M>
struct Accessor
{
    friend typename Tag::type Member(Tag)
    {
        return M;
    }
};

struct PieDropProb
{
    using type = double PieQueueDisc::*;
    friend type Member(PieDropProb);
};

struct PieUv
{
    using type = Ptr<UniformRandomVariable> PieQueueDisc::*;
    friend type Member(PieUv);
};

struct RedUv
{
    using type = Ptr<UniformRandomVariable> RedQueueDisc::*;
    friend type Member(RedUv);
};

template struct Accessor<PieDropProb, &PieQueueDisc::m_dropProb>;
template struct Accessor<PieUv, &PieQueueDisc::m_uv>;
template struct Accessor<RedUv, &RedQueueDisc::m_uv>;

struct CobaltUv
{
    using type = Ptr<UniformRandomVariable> CobaltQueueDisc::*;
    friend type Member(CobaltUv);
};

template struct Accessor<CobaltUv, &CobaltQueueDisc::m_uv>;

// ------------------------------------------------------------------ state
struct Op
{
    char kind;
    int64_t t;
    uint32_t flow;
    uint32_t bytes;
    int ect;
    long line;
};

struct Event
{
    char kind; // 'b' drop before enqueue, 'a' drop after dequeue, 'm' mark
    uint64_t uid;
    std::string reason;
};

static FILE* g_out = stdout;
static Ptr<QueueDisc> g_q;
static std::vector<Event> g_events;
static std::map<uint64_t, std::pair<uint64_t, uint32_t>> g_ids; // uid -> (id, flow)
static uint64_t g_nextId = 0;
static bool g_reasons = false;
static bool g_sojourn = false;
static bool g_printUniforms = false;
static int64_t g_lastSojourn = -1;
// FQ-PIE, FQ-COBALT: every child PieQueueDisc/CobaltQueueDisc draws from this one stream
// (set on its creation).
static Ptr<UniformRandomVariable> g_uv;

static int64_t
NowNs()
{
    return Simulator::Now().GetNanoSeconds();
}

static void
OnDropBefore(Ptr<const QueueDiscItem> item, const char* reason)
{
    g_events.push_back({'b', item->GetPacket()->GetUid(), reason});
}

static void
OnDropAfter(Ptr<const QueueDiscItem> item, const char* reason)
{
    g_events.push_back({'a', item->GetPacket()->GetUid(), reason});
}

static void
OnMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    g_events.push_back({'m', item->GetPacket()->GetUid(), reason});
}

static void
OnSojourn(Time t)
{
    g_lastSojourn = t.GetNanoSeconds();
}

// Classifies an item by the flow number carried in its source address (see the header).
class FlowNumberFilter : public PacketFilter
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("aqmsim::FlowNumberFilter")
                                .SetParent<PacketFilter>()
                                .AddConstructor<FlowNumberFilter>();
        return tid;
    }

  private:
    bool CheckProtocol(Ptr<QueueDiscItem> item) const override
    {
        return DynamicCast<Ipv4QueueDiscItem>(item) != nullptr;
    }

    int32_t DoClassify(Ptr<QueueDiscItem> item) const override
    {
        uint32_t src = DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetSource().Get();
        return static_cast<int32_t>(src - Ipv4Address("10.0.0.1").Get());
    }
};

// The disc's uniform stream, optionally scripted and/or printed.
class ReplayUniform : public UniformRandomVariable
{
  public:
    std::vector<double> script;
    size_t next = 0;
    bool scripted = false;

    double GetValue() override
    {
        double u;
        if (scripted)
        {
            if (next >= script.size())
            {
                std::fprintf(stderr, "queue_replay: --uniforms ran out after %zu draws\n", next);
                std::exit(2);
            }
            u = script[next++];
        }
        else
        {
            u = UniformRandomVariable::GetValue();
        }
        if (g_printUniforms)
        {
            std::fprintf(g_out, "rand %" PRId64 " %.17g\n", NowNs(), u);
        }
        return u;
    }
};

static void
PrintId(const char* what, uint64_t uid, const std::string& reason)
{
    auto it = g_ids.find(uid);
    std::fprintf(g_out, "%s %" PRId64 " %" PRIu64 " %u", what, NowNs(), it->second.first,
                 it->second.second);
    if (g_reasons)
    {
        std::fprintf(g_out, " %s", reason.c_str());
    }
    std::fputc('\n', g_out);
}

// FQ-PIE creates a child PieQueueDisc (with its own uniform stream) for a flow queue on
// the queue's first packet; that packet never draws (an empty PIE skips the random test),
// so swapping the child's stream right after the Enqueue that created it loses nothing.
static void
SwapChildUniforms()
{
    static uint32_t swapped = 0;
    if (!DynamicCast<FqPieQueueDisc>(g_q) && !DynamicCast<FqCobaltQueueDisc>(g_q))
    {
        return;
    }
    for (; swapped < g_q->GetNQueueDiscClasses(); ++swapped)
    {
        Ptr<QueueDisc> child = g_q->GetQueueDiscClass(swapped)->GetQueueDisc();
        if (Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(child))
        {
            PeekPointer(pie)->*Member(PieUv()) = g_uv;
        }
        if (Ptr<CobaltQueueDisc> cobalt = DynamicCast<CobaltQueueDisc>(child))
        {
            PeekPointer(cobalt)->*Member(CobaltUv()) = g_uv;
        }
    }
}

static void
DoEnqueue(const Op* op)
{
    uint32_t payload = op->bytes - 20;
    Ptr<Packet> p = Create<Packet>(payload - 8);
    UdpHeader udp;
    udp.SetSourcePort(static_cast<uint16_t>(1024 + op->flow % 60000));
    udp.SetDestinationPort(5000);
    p->AddHeader(udp);
    Ipv4Header h;
    h.SetSource(Ipv4Address(Ipv4Address("10.0.0.1").Get() + op->flow));
    h.SetDestination(Ipv4Address("10.255.255.254"));
    h.SetProtocol(17);
    h.SetPayloadSize(payload);
    h.SetTtl(64);
    static const Ipv4Header::EcnType codepoints[] = {Ipv4Header::ECN_NotECT, Ipv4Header::ECN_ECT0,
                                                     Ipv4Header::ECN_ECT1, Ipv4Header::ECN_CE};
    h.SetEcn(codepoints[op->ect]);
    Ptr<Ipv4QueueDiscItem> item =
        Create<Ipv4QueueDiscItem>(p, Mac48Address("00:00:00:00:00:01"), 0x0800, h);
    uint64_t uid = p->GetUid();
    uint64_t id = g_nextId++;
    g_ids[uid] = {id, op->flow};

    g_events.clear();
    g_q->Enqueue(item);
    SwapChildUniforms();
    char what = 'q';
    std::string why;
    for (Event& e : g_events)
    {
        if (e.uid == uid && e.kind == 'b')
        {
            what = 'd';
            why = e.reason;
            e.kind = 0;
        }
        else if (e.uid == uid && e.kind == 'm')
        {
            if (what == 'q')
            {
                what = 'm';
                why = e.reason;
            }
            e.kind = 0;
        }
    }
    std::fprintf(g_out, "enq %" PRId64 " %" PRIu64 " %u %c", NowNs(), id, op->flow, what);
    if (g_reasons && what != 'q')
    {
        std::fprintf(g_out, " %s", why.c_str());
    }
    std::fputc('\n', g_out);
    for (const Event& e : g_events)
    {
        if (e.kind == 'a' || e.kind == 'b')
        {
            PrintId("drop", e.uid, e.reason);
        }
        else if (e.kind == 'm')
        {
            PrintId("mark", e.uid, e.reason);
        }
    }
}

static void
DoDequeue()
{
    g_events.clear();
    g_lastSojourn = -1;
    Ptr<QueueDiscItem> item = g_q->Dequeue();
    for (const Event& e : g_events)
    {
        PrintId(e.kind == 'm' ? "mark" : "drop", e.uid, e.reason);
    }
    if (!item)
    {
        std::fprintf(g_out, "deq %" PRId64 " - - -\n", NowNs());
        return;
    }
    auto it = g_ids.find(item->GetPacket()->GetUid());
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    int ce = ip->GetHeader().GetEcn() == Ipv4Header::ECN_CE ? 1 : 0;
    std::fprintf(g_out, "deq %" PRId64 " %" PRIu64 " %u %d", NowNs(), it->second.first,
                 it->second.second, ce);
    if (g_sojourn)
    {
        std::fprintf(g_out, " %" PRId64, g_lastSojourn);
    }
    std::fputc('\n', g_out);
    g_ids.erase(it);
}

static void
RunOp(const Op* op)
{
    if (op->kind == 'e')
    {
        DoEnqueue(op);
    }
    else
    {
        DoDequeue();
    }
}

// PIE: runs right after each CalculateP (see the header for why the order holds).
static void
SamplePie(Ptr<PieQueueDisc> pie, Time period)
{
    double p = PeekPointer(pie)->*Member(PieDropProb());
    std::fprintf(g_out, "prob %" PRId64 " %.17g %" PRId64 "\n", NowNs(), p,
                 pie->GetQueueDelay().GetNanoSeconds());
    Simulator::Schedule(period, &SamplePie, pie, period);
}

static bool
ReadOps(const std::string& path, std::vector<Op>& ops)
{
    std::ifstream in(path);
    if (!in)
    {
        std::fprintf(stderr, "queue_replay: cannot read --ops=%s\n", path.c_str());
        return false;
    }
    std::string line;
    long n = 0;
    int64_t last = 0;
    while (std::getline(in, line))
    {
        ++n;
        line = line.substr(0, line.find('#'));
        std::istringstream ls(line);
        std::string kind;
        if (!(ls >> kind))
        {
            continue;
        }
        Op op{0, 0, 0, 0, 0, n};
        int ect = 0;
        bool ok;
        if (kind == "e")
        {
            op.kind = 'e';
            ok = bool(ls >> op.t >> op.flow >> op.bytes >> ect) && ect >= 0 && ect <= 3 &&
                 op.bytes >= 28;
            op.ect = ect;
        }
        else if (kind == "d")
        {
            op.kind = 'd';
            ok = bool(ls >> op.t);
        }
        else
        {
            ok = false;
        }
        std::string extra;
        if (!ok || (ls >> extra) || op.t < last)
        {
            std::fprintf(stderr,
                         "queue_replay: %s:%ld: expected 'e <t_ns> <flow> <bytes>=28> <0|1|2|3>' "
                         "or 'd <t_ns>' with non-decreasing times: %s\n",
                         path.c_str(), n, line.c_str());
            return false;
        }
        last = op.t;
        ops.push_back(op);
    }
    return true;
}

int
main(int argc, char* argv[])
{
    std::string queue = "codel";
    std::string opsPath;
    std::string outPath;
    std::string uniformsPath;
    bool hash = false;
    uint32_t seed = 1;
    uint32_t run = 1;
    int64_t stream = 0;

    uint32_t quantum = 1500;

    CommandLine cmd(__FILE__);
    cmd.AddValue("queue", "codel, pie, fq_codel, fq_pie, red, cobalt or fq_cobalt", queue);
    cmd.AddValue("ops", "the script of enqueues and dequeues", opsPath);
    cmd.AddValue("out", "output file (default stdout)", outPath);
    cmd.AddValue("hash", "FQ-CoDel/FQ-PIE/FQ-COBALT: ns-3's 5-tuple hash instead of queue = flow % Flows", hash);
    cmd.AddValue("quantum", "FQ-CoDel/FQ-PIE/FQ-COBALT quantum, bytes (SetQuantum: 3.37 has no attribute)", quantum);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("stream", "stream number of the disc's uniforms (AssignStreams)", stream);
    cmd.AddValue("uniforms", "file of uniforms RED/PIE use instead of drawing", uniformsPath);
    cmd.AddValue("printUniforms", "print a 'rand <t> <u>' line for every uniform drawn",
                 g_printUniforms);
    cmd.AddValue("reasons", "append the disc's reason to drop/mark lines", g_reasons);
    cmd.AddValue("sojourn", "append the sojourn time (ns) to deq lines", g_sojourn);
    cmd.Parse(argc, argv);

    std::map<std::string, std::string> types = {{"codel", "ns3::CoDelQueueDisc"},
                                                {"pie", "ns3::PieQueueDisc"},
                                                {"fq_codel", "ns3::FqCoDelQueueDisc"},
                                                {"fq_pie", "ns3::FqPieQueueDisc"},
                                                {"red", "ns3::RedQueueDisc"},
                                                {"cobalt", "ns3::CobaltQueueDisc"},
                                                {"fq_cobalt", "ns3::FqCobaltQueueDisc"}};
    if (!types.count(queue) || opsPath.empty())
    {
        std::fprintf(stderr, "queue_replay: need --queue=codel|pie|fq_codel|fq_pie|red|cobalt|fq_cobalt and --ops=PATH\n");
        return 2;
    }
    std::vector<Op> ops;
    if (!ReadOps(opsPath, ops))
    {
        return 2;
    }
    if (!outPath.empty() && !(g_out = std::fopen(outPath.c_str(), "w")))
    {
        std::fprintf(stderr, "queue_replay: cannot write --out=%s\n", outPath.c_str());
        return 2;
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    ObjectFactory factory;
    factory.SetTypeId(types[queue]);
    g_q = factory.Create<QueueDisc>();
    if (Ptr<FqCoDelQueueDisc> fq = DynamicCast<FqCoDelQueueDisc>(g_q))
    {
        // ns-3 takes the quantum from the device's MTU when it is 0; there is no device.
        fq->SetQuantum(quantum);
        if (!hash)
        {
            fq->AddPacketFilter(CreateObject<FlowNumberFilter>());
        }
    }

    // RED and PIE: a uniform stream that can be scripted or printed.
    Ptr<ReplayUniform> uv = CreateObject<ReplayUniform>();
    uv->SetStream(stream);
    if (!uniformsPath.empty())
    {
        std::ifstream in(uniformsPath);
        double u;
        while (in >> u)
        {
            uv->script.push_back(u);
        }
        uv->scripted = true;
    }
    if (Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(g_q))
    {
        PeekPointer(pie)->*Member(PieUv()) = uv;
    }
    if (Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(g_q))
    {
        PeekPointer(red)->*Member(RedUv()) = uv;
    }
    if (Ptr<FqPieQueueDisc> fq = DynamicCast<FqPieQueueDisc>(g_q))
    {
        // as FQ-CoDel's (see the header): the quantum, and the flow-number filter
        fq->SetQuantum(quantum);
        if (!hash)
        {
            fq->AddPacketFilter(CreateObject<FlowNumberFilter>());
        }
        g_uv = uv;
    }
    if (Ptr<FqCobaltQueueDisc> fq = DynamicCast<FqCobaltQueueDisc>(g_q))
    {
        // as FQ-PIE's: the quantum, the flow-number filter, the children's uniforms
        fq->SetQuantum(quantum);
        if (!hash)
        {
            fq->AddPacketFilter(CreateObject<FlowNumberFilter>());
        }
        g_uv = uv;
    }
    if (Ptr<CobaltQueueDisc> cobalt = DynamicCast<CobaltQueueDisc>(g_q))
    {
        PeekPointer(cobalt)->*Member(CobaltUv()) = uv; // BLUE's draws at dequeue
    }

    g_q->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBefore));
    g_q->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfter));
    g_q->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    g_q->TraceConnectWithoutContext("SojournTime", MakeCallback(&OnSojourn));
    g_q->Initialize();

    if (Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(g_q))
    {
        TimeValue period;
        pie->GetAttribute("Tupdate", period);
        // Scheduled after the constructor's CalculateP at t = 0 and before the ops.
        Simulator::Schedule(Seconds(0), &SamplePie, pie, period.Get());
    }
    for (const Op& op : ops)
    {
        Simulator::Schedule(NanoSeconds(op.t), &RunOp, &op);
    }
    Simulator::Stop(NanoSeconds(ops.empty() ? 0 : ops.back().t));
    Simulator::Run();
    Simulator::Destroy();
    g_q = nullptr;
    g_uv = nullptr;
    if (g_out != stdout)
    {
        std::fclose(g_out);
    }
    return 0;
}
