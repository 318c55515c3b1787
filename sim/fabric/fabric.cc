// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
// xdpleaf-fabric: a two-tier leaf-spine Clos in ns-3 whose leaves choose
// uplinks and mark ECN with xdpleaf's own code (leaf_shim.h, compiled as
// C), running MPI-like collectives over TCP; one cell per run, its step
// times as JSON. docs/fabric-sim.md.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "leaf_shim.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace
{

// ---- options ---------------------------------------------------------

struct Opts
{
    uint32_t leaves = 2, spines = 4, hostsPerLeaf = 4;
    std::string hostRate = "100G";   // host <-> leaf
    std::string fabricRate = "100G"; // leaf <-> spine, each way
    std::string uplinkRates;            // per spine, overrides fabricRate
    std::string fastRate;            // unshaped links (default below)
    std::string delay = "1us";          // per link
    double bufferUs = 2000;             // each port's buffer, as time at its rate
    double degrade = 0;                 // fraction of leaf-spine links at half rate
    bool lab = false;                   // the lab's shaping (below)
    std::string fabric = "flowlet";     // ref | ecmp | an lb_mode
    std::string collective = "allreduce";
    uint64_t bytes = 4 << 20;
    uint32_t steps = 5, warmup = 1, channels = 1, seed = 1;
    std::string tcp = "reno"; // reno (the lab's dc hosts) | dctcp (ECN)
    double minRtoMs = 5;
    std::string out; // JSON here (default stdout)
};

// Rates as the lab and the configuration write them (100M, 2.5G).
uint64_t
RateOf(const std::string& s)
{
    char err[128];
    uint64_t bps;
    if (xlf_parse_rate(s.c_str(), &bps, err, sizeof(err)))
    {
        NS_FATAL_ERROR("bad rate '" << s << "': " << err);
    }
    return bps;
}

std::vector<uint64_t>
SpineRates(const Opts& o)
{
    std::vector<uint64_t> r;
    if (o.uplinkRates.empty())
    {
        r.assign(o.spines, RateOf(o.fabricRate));
        return r;
    }
    std::stringstream ss(o.uplinkRates);
    std::string tok;
    while (std::getline(ss, tok, ','))
    {
        r.push_back(RateOf(tok));
    }
    if (r.size() != o.spines)
    {
        NS_FATAL_ERROR("--uplinkRates needs " << o.spines << " rates, one per spine");
    }
    return r;
}

// ---- byte accounting (conservation) ----------------------------------

struct Bytes
{
    uint64_t hostTx = 0, hostRx = 0, dropped = 0;
    uint64_t pktTx = 0, pktRx = 0, pktDropped = 0;
};

Bytes g_bytes;

void
HostTx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    g_bytes.hostTx += p->GetSize();
    g_bytes.pktTx++;
}

void
HostRx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    g_bytes.hostRx += p->GetSize();
    g_bytes.pktRx++;
}

// Every drop, wherever it happens, as the IP packet's bytes.
void
Dropped(uint64_t ipBytes)
{
    g_bytes.dropped += ipBytes;
    g_bytes.pktDropped++;
}

// A device's (its queue's, its PHY's): behind the point-to-point header.
void
DeviceDrop(Ptr<const Packet> p)
{
    Dropped(p->GetSize() - 2);
}

void
QdiscDrop(Ptr<const QueueDiscItem> item)
{
    Dropped(item->GetSize());
}

// At the IP layer of any node (no route, TTL).
void
IpDrop(const Ipv4Header& h, Ptr<const Packet> p, Ipv4L3Protocol::DropReason, Ptr<Ipv4>, uint32_t)
{
    Dropped(p->GetSize() + h.GetSerializedSize());
}

// ---- the leaf --------------------------------------------------------

// Addresses: host h of leaf l is 10.(l+1).(h+1).1, its leaf's end of the
// link .2; leaf l's link to spine s is 11.l.s.0/24 (leaf .1, spine .2).

// The leaf: local hosts by their port, the rest through the uplink
// group, every uplink packet's member chosen (and, for xdpleaf's
// fabrics, offered to the member's phantom queue) by the shim.
class LeafRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("xdpleaf::LeafRouting").SetParent<Ipv4RoutingProtocol>().SetGroupName("Internet");
        return tid;
    }

    LeafRouting(uint32_t leaf, struct xlf_leaf* shim, bool mark, uint32_t hashSeed)
        : m_leaf(leaf),
          m_shim(shim),
          m_mark(mark),
          m_seed(hashSeed)
    {
    }

    ~LeafRouting() override
    {
        xlf_leaf_free(m_shim);
    }

    std::vector<uint32_t> down, up; // interface indices: per host, per spine

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet>,
                               const Ipv4Header&,
                               Ptr<NetDevice>,
                               Socket::SocketErrno& err) override
    {
        err = Socket::ERROR_NOROUTETOHOST; // a leaf sends nothing of its own
        return nullptr;
    }

    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& hdr,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback,
                    LocalDeliverCallback lcb,
                    ErrorCallback) override
    {
        uint32_t d = hdr.GetDestination().Get();
        uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
        if (m_ipv4->IsDestinationAddress(hdr.GetDestination(), iif))
        {
            lcb(p, hdr, iif);
            return true;
        }
        if ((d >> 24) == 10 && ((d >> 16) & 0xff) == m_leaf + 1)
        {
            uint32_t h = ((d >> 8) & 0xff) - 1;
            if (h >= down.size())
            {
                return false;
            }
            ucb(Route(down[h], hdr), p, hdr);
            return true;
        }
        bool ack = false;
        unsigned k = FlowOf(p, hdr, ack);
        int m = xlf_leaf_packet(m_shim, k, Now().GetNanoSeconds(),
                                p->GetSize() + hdr.GetSerializedSize(), ack);
        if (m < 0)
        {
            return false;
        }
        Ipv4Header out = hdr;
        if (m_mark)
        {
            bool ect = hdr.GetEcn() == Ipv4Header::ECN_ECT0 || hdr.GetEcn() == Ipv4Header::ECN_ECT1;
            int q = xlf_port_offer(m_shim, m, Now().GetNanoSeconds(),
                                   p->GetSize() + hdr.GetSerializedSize(), ect);
            if (q & XLF_Q_DROP)
            {
                Dropped(p->GetSize() + hdr.GetSerializedSize());
                return true;
            }
            if (q & XLF_Q_MARK)
            {
                out.SetEcn(Ipv4Header::ECN_CE);
            }
        }
        ucb(Route(up[m], out), p, out);
        return true;
    }

    void NotifyInterfaceUp(uint32_t) override
    {
    }

    void NotifyInterfaceDown(uint32_t) override
    {
    }

    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override
    {
    }

    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override
    {
    }

    void SetIpv4(Ptr<Ipv4> ipv4) override
    {
        m_ipv4 = ipv4;
    }

    void PrintRoutingTable(Ptr<OutputStreamWrapper>, Time::Unit) const override
    {
    }

    struct xlf_leaf* Shim() const
    {
        return m_shim;
    }

  private:
    Ptr<Ipv4Route> Route(uint32_t iface, const Ipv4Header& hdr)
    {
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetDestination(hdr.GetDestination());
        r->SetSource(hdr.GetSource());
        r->SetGateway(hdr.GetDestination()); // point-to-point: no ARP
        r->SetOutputDevice(m_ipv4->GetNetDevice(iface));
        return r;
    }

    // The shim's flow index of a packet's 5-tuple, a new flow on its
    // first packet (hashed by include/lb.h).
    unsigned FlowOf(Ptr<const Packet> p, const Ipv4Header& hdr, bool& pureAck)
    {
        uint16_t sport = 0, dport = 0;
        if (hdr.GetProtocol() == 6)
        {
            TcpHeader t;
            p->PeekHeader(t);
            sport = t.GetSourcePort();
            dport = t.GetDestinationPort();
            pureAck = p->GetSize() == t.GetSerializedSize() &&
                      !(t.GetFlags() & (TcpHeader::SYN | TcpHeader::FIN | TcpHeader::RST));
        }
        else if (hdr.GetProtocol() == 17)
        {
            UdpHeader u;
            p->PeekHeader(u);
            sport = u.GetSourcePort();
            dport = u.GetDestinationPort();
        }
        auto key = std::make_tuple(hdr.GetSource().Get(), hdr.GetDestination().Get(), sport, dport,
                                   hdr.GetProtocol());
        auto it = m_flows.find(key);
        if (it != m_flows.end())
        {
            return it->second;
        }
        int k = xlf_leaf_add_flow(m_shim,
                                  xlf_flow_hash(hdr.GetSource().Get(), hdr.GetDestination().Get(),
                                                sport, dport, hdr.GetProtocol(), m_seed));
        if (k < 0)
        {
            NS_FATAL_ERROR("leaf " << m_leaf << ": out of memory for flows");
        }
        m_flows[key] = k;
        return k;
    }

    uint32_t m_leaf;
    struct xlf_leaf* m_shim;
    bool m_mark;
    uint32_t m_seed;
    Ptr<Ipv4> m_ipv4;
    std::map<std::tuple<uint32_t, uint32_t, uint16_t, uint16_t, uint8_t>, unsigned> m_flows;
};

// ---- collectives -----------------------------------------------------

// One connection: bytes still to hand to TCP, pushed as its buffer frees.
struct Conn
{
    Ptr<Socket> sock;
    uint64_t pending = 0;
};

// One phase of a rank: the message it sends and the one it waits for.
struct Phase
{
    uint32_t to, from;
    uint64_t bytes;
};

// The collectives' phases per rank (n ranks, bytes per rank), as
// bench/jct/bound.py writes them for Open MPI's algorithms: in each
// phase every rank sends to one rank and hears from one; empty for an
// unknown name or a rank count the algorithm cannot take.
std::vector<std::vector<Phase>>
Schedule(const std::string& op, uint32_t n, uint64_t bytes)
{
    std::vector<std::vector<Phase>> s(n);
    uint32_t k = 0;
    while ((1u << k) < n)
    {
        k++;
    }
    bool pow2 = (1u << k) == n;
    for (uint32_t r = 0; r < n; r++)
    {
        if (op == "allreduce") // ring: reduce-scatter, then allgather
        {
            for (uint32_t p = 0; p < 2 * (n - 1); p++)
            {
                s[r].push_back({(r + 1) % n, (r + n - 1) % n, bytes / n});
            }
        }
        else if (op == "alltoall") // pairwise: r + p to, r - p from
        {
            for (uint32_t p = 1; p < n; p++)
            {
                s[r].push_back({(r + p) % n, (r + n - p) % n, bytes / n});
            }
        }
        else if (op == "allreduce-recdbl" && pow2) // all of it with r ^ 2^i
        {
            for (uint32_t i = 0; i < k; i++)
            {
                s[r].push_back({r ^ (1u << i), r ^ (1u << i), bytes});
            }
        }
        else if (op == "allreduce-rabenseifner" && pow2)
        {
            // recursive halving (r ^ 1, 2, 4..: half, a quarter..), then
            // recursive doubling back in reverse
            for (uint32_t i = 0; i < 2 * k; i++)
            {
                uint32_t d = i < k ? i : 2 * k - 1 - i;
                s[r].push_back({r ^ (1u << d), r ^ (1u << d), bytes >> (d + 1)});
            }
        }
        else
        {
            return {};
        }
    }
    return s;
}

// MPI-like collectives between ranks: each phase is a sendrecv (a rank
// goes on when its message of the phase is delivered and the one it
// expects has arrived); an iteration starts after a barrier.
class Collective
{
  public:
    Collective(const Opts& o,
               const std::vector<Ptr<Node>>& hosts,
               const std::vector<Ipv4Address>& addrs,
               const std::vector<std::vector<Phase>>& sched)
        : m_o(o),
          m_hosts(hosts),
          m_addrs(addrs),
          m_n(hosts.size()),
          m_sched(sched)
    {
        m_phases = m_sched[0].size();
        // what rank r's phase p waits for from its source: the bytes
        // from that source in this iteration up to p
        m_perIter.assign(m_n * m_n, 0);
        m_inUpTo.assign(m_n, std::vector<uint64_t>(m_phases));
        for (uint32_t r = 0; r < m_n; r++)
        {
            for (uint32_t p = 0; p < m_phases; p++)
            {
                uint32_t from = m_sched[r][p].from;
                NS_ABORT_MSG_IF(m_sched[from][p].to != r, "a phase's source sends elsewhere");
                m_perIter[from * m_n + r] += m_sched[from][p].bytes;
                m_inUpTo[r][p] = m_perIter[from * m_n + r];
            }
        }
        m_delivered.assign(m_n * m_n, 0);
        m_expected.assign(m_n * m_n, 0);
        m_phase.assign(m_n, 0);
        m_conns.resize(m_n * m_n);
    }

    void Start()
    {
        for (uint32_t r = 0; r < m_n; r++)
        {
            Ptr<Socket> l = Socket::CreateSocket(m_hosts[r], TcpSocketFactory::GetTypeId());
            l->Bind(InetSocketAddress(Ipv4Address::GetAny(), 5000));
            l->Listen();
            l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                 MakeCallback(&Collective::Accepted, this));
            m_listen.push_back(l);
        }
        for (uint32_t r = 0; r < m_n; r++)
        {
            for (uint32_t p = 0; p < m_phases; p++)
            {
                uint32_t to = m_sched[r][p].to;
                auto& cs = m_conns[r * m_n + to];
                if (!cs.empty())
                {
                    continue;
                }
                for (uint32_t c = 0; c < m_o.channels; c++)
                {
                    Conn k;
                    k.sock = Socket::CreateSocket(m_hosts[r], TcpSocketFactory::GetTypeId());
                    k.sock->Bind();
                    k.sock->Connect(InetSocketAddress(m_addrs[to], 5000));
                    k.sock->SetSendCallback(MakeCallback(&Collective::Push, this));
                    m_sockConn[PeekPointer(k.sock)] = {r * m_n + to, c};
                    cs.push_back(k);
                }
            }
        }
        // connections settle before the first iteration
        Simulator::Schedule(MilliSeconds(100), &Collective::Iteration, this);
    }

    std::vector<double> times_ms; // per measured iteration
    uint64_t appSent = 0, appReceived = 0;
    bool done = false;

  private:
    void Iteration()
    {
        m_start = Simulator::Now();
        m_left = m_n;
        std::fill(m_phase.begin(), m_phase.end(), 0);
        for (uint32_t r = 0; r < m_n; r++)
        {
            Send(r);
        }
    }

    // Rank r's message of its current phase: split over the channels.
    void Send(uint32_t r)
    {
        const Phase& ph = m_sched[r][m_phase[r]];
        uint32_t to = ph.to;
        auto& cs = m_conns[r * m_n + to];
        uint64_t each = ph.bytes / cs.size();
        for (size_t c = 0; c < cs.size(); c++)
        {
            uint64_t b = c + 1 == cs.size() ? ph.bytes - each * (cs.size() - 1) : each;
            cs[c].pending += b;
            appSent += b;
            Push(cs[c].sock, cs[c].sock->GetTxAvailable());
        }
        m_expected[r * m_n + to] += ph.bytes;
    }

    void Push(Ptr<Socket> s, uint32_t)
    {
        auto w = m_sockConn[PeekPointer(s)];
        Conn& c = m_conns[w.first][w.second];
        while (c.pending > 0 && s->GetTxAvailable() > 0)
        {
            uint32_t n = std::min<uint64_t>({c.pending, s->GetTxAvailable(), 65536});
            int sent = s->Send(Create<Packet>(n));
            if (sent <= 0)
            {
                break;
            }
            c.pending -= sent;
        }
    }

    void Accepted(Ptr<Socket> s, const Address& from)
    {
        Ipv4Address a = InetSocketAddress::ConvertFrom(from).GetIpv4();
        uint32_t src = std::find(m_addrs.begin(), m_addrs.end(), a) - m_addrs.begin();
        uint32_t me = std::find(m_hosts.begin(), m_hosts.end(), s->GetNode()) - m_hosts.begin();
        m_recvFrom[PeekPointer(s)] = {src, me};
        s->SetRecvCallback(MakeCallback(&Collective::Received, this));
    }

    void Received(Ptr<Socket> s)
    {
        auto w = m_recvFrom[PeekPointer(s)];
        uint32_t from = w.first, me = w.second;
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            m_delivered[from * m_n + me] += p->GetSize();
            appReceived += p->GetSize();
        }
        // the sender's phase may be complete, and so may the receiver's
        Advance(from);
        Advance(me);
    }

    void Advance(uint32_t r)
    {
        while (m_phase[r] < m_phases && Ready(r))
        {
            m_phase[r]++;
            if (m_phase[r] == m_phases)
            {
                if (--m_left == 0)
                {
                    Finished();
                }
                return;
            }
            Send(r);
        }
    }

    // Rank r's phase is over: its message delivered, and the one from
    // its source for this phase arrived (cumulative per pair: a pair's
    // messages are one after another on the same connections).
    bool Ready(uint32_t r) const
    {
        uint32_t p = m_phase[r];
        uint32_t to = m_sched[r][p].to, from = m_sched[r][p].from;
        return m_delivered[r * m_n + to] >= m_expected[r * m_n + to] &&
               m_delivered[from * m_n + r] >= m_iter * m_perIter[from * m_n + r] + m_inUpTo[r][p];
    }

    void Finished()
    {
        double ms = (Simulator::Now() - m_start).GetSeconds() * 1e3;
        if (m_iter >= m_o.warmup)
        {
            times_ms.push_back(ms);
        }
        m_iter++;
        if (m_iter < m_o.warmup + m_o.steps)
        {
            Simulator::ScheduleNow(&Collective::Iteration, this);
            return;
        }
        done = true;
        for (auto& cs : m_conns)
        {
            for (auto& c : cs)
            {
                c.sock->Close();
            }
        }
        Simulator::Stop(Seconds(1));
    }

    const Opts& m_o;
    std::vector<Ptr<Node>> m_hosts;
    std::vector<Ipv4Address> m_addrs;
    uint32_t m_n, m_phases, m_left = 0, m_iter = 0;
    std::vector<std::vector<Phase>> m_sched;      // [rank][phase]
    std::vector<uint64_t> m_perIter;              // [from * n + to]: bytes per iteration
    std::vector<std::vector<uint64_t>> m_inUpTo; // [rank][phase]: from its source, so far
    Time m_start;
    std::vector<uint64_t> m_delivered, m_expected; // [from * n + to]
    std::vector<uint32_t> m_phase;
    std::vector<std::vector<Conn>> m_conns; // [from * n + to]
    std::map<Socket*, std::pair<uint32_t, uint32_t>> m_sockConn;
    std::map<Socket*, std::pair<uint32_t, uint32_t>> m_recvFrom; // from, to
    std::vector<Ptr<Socket>> m_listen;
};

} // namespace

int
main(int argc, char* argv[])
{
    Opts o;
    // the event list as a binary heap rather than ns-3's default std::map
    // (a node allocated per event): every scheduler runs events in the
    // same order (by time, then by when scheduled), so results stay the
    // same; --SchedulerType still overrides
    GlobalValue::Bind("SchedulerType", StringValue("ns3::PriorityQueueScheduler"));
    CommandLine cmd(__FILE__);
    cmd.AddValue("leaves", "leaves", o.leaves);
    cmd.AddValue("spines", "spines (each leaf has one uplink to each)", o.spines);
    cmd.AddValue("hostsPerLeaf", "hosts per leaf", o.hostsPerLeaf);
    cmd.AddValue("hostRate", "host link rate", o.hostRate);
    cmd.AddValue("fabricRate", "leaf-spine link rate", o.fabricRate);
    cmd.AddValue("uplinkRates", "per spine, comma-separated (overrides fabricRate)", o.uplinkRates);
    cmd.AddValue("fastRate",
                 "unshaped links (ref's uplinks, what --lab leaves unshaped); default 10x the "
                 "fastest host or fabric link, with --lab 10G",
                 o.fastRate);
    cmd.AddValue("delay", "per link propagation delay", o.delay);
    cmd.AddValue("degrade", "this fraction of the leaf-spine links (drawn by --seed) at half rate", o.degrade);
    cmd.AddValue("bufferUs", "each port's buffer in microseconds at its rate", o.bufferUs);
    cmd.AddValue("lab", "shape as lab/lab.sh: only spine->last leaf (and ref's last-leaf host ports)", o.lab);
    cmd.AddValue("fabric", "ref | ecmp | hash | flowlet | flowlet-random | spray", o.fabric);
    cmd.AddValue("collective",
                 "allreduce (ring) | alltoall (pairwise) | allreduce-recdbl | allreduce-rabenseifner "
                 "(the last two: a power-of-two number of hosts)",
                 o.collective);
    cmd.AddValue("bytes", "the collective's buffer per rank", o.bytes);
    cmd.AddValue("steps", "measured iterations", o.steps);
    cmd.AddValue("warmup", "iterations before them", o.warmup);
    cmd.AddValue("channels", "connections per peer (NCCL-style channels)", o.channels);
    cmd.AddValue("seed", "random draws (hashes, marks, flowlet-random)", o.seed);
    cmd.AddValue("tcp", "reno (the lab's dc hosts, no ECN) | dctcp (ECN on)", o.tcp);
    cmd.AddValue("minRtoMs", "TCP's minimum RTO", o.minRtoMs);
    cmd.AddValue("out", "write the JSON here (default stdout)", o.out);
    cmd.Parse(argc, argv);

    bool ref = o.fabric == "ref", ecmp = o.fabric == "ecmp";
    int mode = ref || ecmp ? xlf_lb_mode("hash") : xlf_lb_mode(o.fabric.c_str());
    if (mode < 0)
    {
        NS_FATAL_ERROR("--fabric: '" << o.fabric
                                      << "' is not ref, ecmp, hash, flowlet, flowlet-random or spray");
    }
    if (o.leaves < 2 || o.spines < 1 || o.hostsPerLeaf < 1 || o.leaves > 250 || o.hostsPerLeaf > 250 ||
        o.spines > 32 || o.channels < 1 || o.steps < 1)
    {
        NS_FATAL_ERROR("sizes: 2..250 leaves, 1..32 spines, 1..250 hosts per leaf, >= 1 channel and step");
    }
    std::vector<std::vector<Phase>> sched = Schedule(o.collective, o.leaves * o.hostsPerLeaf, o.bytes);
    if (sched.empty() || sched[0].empty())
    {
        NS_FATAL_ERROR("--collective: '" << o.collective
                                         << "' is not allreduce, alltoall, allreduce-recdbl or "
                                            "allreduce-rabenseifner, or not for "
                                         << o.leaves * o.hostsPerLeaf << " hosts");
    }
    RngSeedManager::SetSeed(o.seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(o.tcp == "dctcp" ? TcpDctcp::GetTypeId() : TcpLinuxReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(o.tcp == "dctcp" ? "On" : "Off"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(o.minRtoMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(100)));
    // Every segment acknowledged at once. ns-3 holds an odd segment's ACK
    // until its timer (200 ms), and a message's last segment outwaited a
    // 5 ms RTO: every message ended in a spurious timeout. Linux acks such
    // a tail as soon as the application reads it (a pushed segment), which
    // ns-3 cannot; with a 1 ms timer a DCTCP sender whose window marks had
    // cut to a segment or two still waited 1 ms at each message's end (on
    // the degraded 16-host fabric, three of 30 ring phases took 1,034 us
    // against 50-70 us, flowlet 3.6x where it is 1.75x with every segment
    // acked).
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));

    auto wall0 = std::chrono::steady_clock::now();
    std::vector<uint64_t> spineBps = SpineRates(o);
    if (o.degrade < 0 || o.degrade > 1)
    {
        NS_FATAL_ERROR("--degrade: a fraction 0..1");
    }
    // each leaf's uplinks: the spines' rates, a --degrade share of all the
    // leaf-spine links at half rate (both ways), drawn by the seed
    std::vector<std::vector<uint64_t>> upBps(o.leaves, spineBps);
    {
        std::vector<uint32_t> all(o.leaves * o.spines);
        for (uint32_t i = 0; i < all.size(); i++)
        {
            all[i] = i;
        }
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(o.seed);
        for (uint32_t i = all.size() - 1; i > 0; i--)
        {
            std::swap(all[i], all[u->GetInteger(0, i)]);
        }
        uint32_t n = (uint32_t)(o.degrade * all.size() + 0.5);
        for (uint32_t i = 0; i < n; i++)
        {
            upBps[all[i] / o.spines][all[i] % o.spines] /= 2;
        }
    }
    // ref: each leaf's hosts at its uplinks' aggregate / H
    std::vector<uint64_t> aggregate(o.leaves, 0);
    for (uint32_t l = 0; l < o.leaves; l++)
    {
        for (auto b : upBps[l])
        {
            aggregate[l] += b;
        }
    }
    // "unlimited": ten times anything a host or an uplink carries, so
    // that it never binds; --lab: 10G, as the lab's veths against 100M
    uint64_t fast =
        o.lab ? 10000000000ULL
              : 10 * std::max(RateOf(o.hostRate), *std::max_element(spineBps.begin(), spineBps.end()));
    if (!o.fastRate.empty())
    {
        fast = RateOf(o.fastRate);
    }

    NodeContainer hostsC, leavesC, spinesC;
    hostsC.Create(o.leaves * o.hostsPerLeaf);
    leavesC.Create(o.leaves);
    spinesC.Create(o.spines);

    PointToPointHelper p2p;
    p2p.SetChannelAttribute("Delay", StringValue(o.delay));
    Ipv4AddressHelper addr;
    Ipv4StaticRoutingHelper srh;

    // A device's rate and its buffer: a FIFO queue disc holding the
    // buffer's time at that rate (at least two full frames), tail drop,
    // over a one-packet device queue. Without a queue disc ns-3's traffic
    // control drops what a stopped device queue refuses, uncounted.
    auto shape = [&](Ptr<NetDevice> d, uint64_t bps) {
        auto pd = DynamicCast<PointToPointNetDevice>(d);
        pd->SetDataRate(DataRate(bps));
        pd->GetQueue()->SetMaxSize(QueueSize("1p"));
        uint64_t b = std::max<uint64_t>((uint64_t)(bps / 8 * o.bufferUs / 1e6), 2 * 1500);
        TrafficControlHelper t;
        t.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, b)));
        QueueDiscContainer q = t.Install(d);
        q.Get(0)->TraceConnectWithoutContext("Drop", MakeCallback(&QdiscDrop));
        pd->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&DeviceDrop));
        pd->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&DeviceDrop));
        pd->TraceConnectWithoutContext("PhyTxDrop", MakeCallback(&DeviceDrop));
    };

    // Every link, its two ends' rates and its subnet. The devices exist
    // before the internet stack is installed, so that traffic control
    // takes the queue discs (ns-3's traffic-control examples' order).
    struct Link
    {
        NetDeviceContainer d;
        uint64_t bps0, bps1;
        std::string net;
        uint32_t leaf, host, spine; // host or spine: ~0u if not
    };

    std::vector<Link> links;
    uint64_t hostBps = RateOf(o.hostRate);
    for (uint32_t l = 0; l < o.leaves; l++)
    {
        bool last = l + 1 == o.leaves;
        for (uint32_t h = 0; h < o.hostsPerLeaf; h++)
        {
            // the host's way in, and the leaf's port toward the host:
            // ref's shaped to the aggregate uplink capacity per host
            uint64_t toHost = o.lab ? fast : hostBps;
            if (ref && (!o.lab || last))
            {
                toHost = aggregate[l] / o.hostsPerLeaf;
            }
            std::ostringstream net;
            net << "10." << l + 1 << "." << h + 1 << ".0";
            links.push_back({p2p.Install(hostsC.Get(l * o.hostsPerLeaf + h), leavesC.Get(l)),
                             o.lab ? fast : hostBps, toHost, net.str(), l, h, ~0u});
        }
        for (uint32_t s = 0; s < o.spines; s++)
        {
            // ref: uplinks unlimited; --lab: only the spines' egress toward
            // the last leaf shaped (lab.sh's TBF on each spine's 'up')
            uint64_t up = ref ? fast : o.lab ? fast : upBps[l][s];
            uint64_t downward = ref ? fast : (o.lab && !last) ? fast : upBps[l][s];
            std::ostringstream net;
            net << "11." << l << "." << s << ".0";
            links.push_back({p2p.Install(leavesC.Get(l), spinesC.Get(s)), up, downward, net.str(), l,
                             ~0u, s});
        }
    }
    InternetStackHelper stack;
    stack.Install(hostsC);
    stack.Install(leavesC);
    stack.Install(spinesC);

    std::vector<Ptr<Node>> ranks(o.leaves * o.hostsPerLeaf);
    std::vector<Ipv4Address> rankAddr(ranks.size());
    std::vector<std::vector<uint32_t>> downIf(o.leaves), upIf(o.leaves);
    std::vector<std::vector<uint32_t>> spineIf(o.spines, std::vector<uint32_t>(o.leaves));
    // every shaped rate as the links got it, for the JSON (the bound of
    // bench/fabric/bound.py is taken over these)
    std::vector<std::vector<uint64_t>> upRate(o.leaves), downRate(o.leaves);
    std::vector<uint64_t> hostUpRate(o.leaves), hostDownRate(o.leaves);
    for (auto& k : links)
    {
        if (k.host != ~0u)
        {
            hostUpRate[k.leaf] = k.bps0;
            hostDownRate[k.leaf] = k.bps1;
        }
        else
        {
            upRate[k.leaf].push_back(k.bps0);
            downRate[k.leaf].push_back(k.bps1);
        }
    }
    for (auto& k : links)
    {
        shape(k.d.Get(0), k.bps0);
        shape(k.d.Get(1), k.bps1);
        addr.SetBase(k.net.c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifc = addr.Assign(k.d);
        if (k.host != ~0u)
        {
            Ptr<Node> host = k.d.Get(0)->GetNode();
            srh.GetStaticRouting(host->GetObject<Ipv4>())->SetDefaultRoute(ifc.GetAddress(1), 1);
            downIf[k.leaf].push_back(ifc.Get(1).second);
            // ranks alternate between leaves: every ring neighbour is
            // across the fabric, as the lab's rank order
            uint32_t r = k.host * o.leaves + k.leaf;
            ranks[r] = host;
            rankAddr[r] = ifc.GetAddress(0);
            host->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Tx", MakeCallback(&HostTx));
            host->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Rx", MakeCallback(&HostRx));
        }
        else
        {
            upIf[k.leaf].push_back(ifc.Get(0).second);
            spineIf[k.spine][k.leaf] = ifc.Get(1).second;
        }
    }
    // spines: each leaf's hosts through its one link to that leaf
    for (uint32_t s = 0; s < o.spines; s++)
    {
        auto sr = srh.GetStaticRouting(spinesC.Get(s)->GetObject<Ipv4>());
        for (uint32_t l = 0; l < o.leaves; l++)
        {
            std::ostringstream net;
            net << "10." << l + 1 << ".0.0";
            sr->AddNetworkRouteTo(Ipv4Address(net.str().c_str()), Ipv4Mask("255.255.0.0"), spineIf[s][l]);
        }
    }
    // leaves: the shim, with the uplinks' capacities as the leaf's config
    // gives them (the spines' rates)
    std::vector<Ptr<LeafRouting>> leafRt;
    for (uint32_t l = 0; l < o.leaves; l++)
    {
        struct xlf_leaf* shim = xlf_leaf_new(o.spines, upBps[l].data(), mode, o.seed * 1000 + l);
        if (!shim)
        {
            NS_FATAL_ERROR("leaf " << l << ": the shim refused the group");
        }
        Ptr<LeafRouting> rt = CreateObject<LeafRouting>(l, shim, !ref && !ecmp, o.seed * 7919 + l);
        rt->down = downIf[l];
        rt->up = upIf[l];
        leavesC.Get(l)->GetObject<Ipv4>()->SetRoutingProtocol(rt);
        leafRt.push_back(rt);
    }

    for (auto c : {&hostsC, &leavesC, &spinesC})
    {
        for (uint32_t i = 0; i < c->GetN(); i++)
        {
            c->Get(i)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Drop", MakeCallback(&IpDrop));
        }
    }
    Collective coll(o, ranks, rankAddr, sched);
    // from the first event on: the nodes (their traffic control) are
    // initialised when the simulation starts
    Simulator::ScheduleNow(&Collective::Start, &coll);
    Simulator::Run();
    uint64_t events = Simulator::GetEventCount();
    double simSeconds = Simulator::Now().GetSeconds();
    Simulator::Destroy();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    if (!coll.done)
    {
        NS_FATAL_ERROR("the collective did not finish");
    }
    uint64_t counts[4] = {0, 0, 0, 0};
    for (auto& rt : leafRt)
    {
        uint64_t c[4];
        xlf_leaf_counts(rt->Shim(), c);
        for (int i = 0; i < 4; i++)
        {
            counts[i] += c[i];
        }
    }
    std::ostringstream j;
    j.precision(6);
    j << std::fixed;
    auto list = [&j](const std::vector<uint64_t>& v) {
        j << "[";
        for (size_t i = 0; i < v.size(); i++)
        {
            j << (i ? "," : "") << v[i];
        }
        j << "]";
    };
    auto lists = [&j, &list](const std::vector<std::vector<uint64_t>>& v) {
        j << "[";
        for (size_t i = 0; i < v.size(); i++)
        {
            j << (i ? "," : "");
            list(v[i]);
        }
        j << "]";
    };
    j << "{\"hosts\":" << ranks.size() << ",\"leaves\":" << o.leaves << ",\"spines\":" << o.spines
      << ",\"hosts_per_leaf\":" << o.hostsPerLeaf << ",\"collective\":\"" << o.collective
      << "\",\"bytes\":" << o.bytes << ",\"fabric\":\"" << (ref || ecmp ? o.fabric : "xdpleaf")
      << "\",\"lb_mode\":\"" << (ref || ecmp ? "" : o.fabric) << "\",\"uplink_bps\":";
    list(spineBps);
    j << ",\"leaf_up_bps\":";
    lists(upRate);
    j << ",\"leaf_down_bps\":";
    lists(downRate);
    j << ",\"host_up_bps\":";
    list(hostUpRate);
    j << ",\"host_down_bps\":";
    list(hostDownRate);
    j << ",\"lab\":" << (o.lab ? "true" : "false") << ",\"degrade\":" << o.degrade << ",\"tcp\":\""
      << o.tcp << "\",\"channels\":" << o.channels << ",\"seed\":" << o.seed
      << ",\"steps_ms\":[";
    for (size_t i = 0; i < coll.times_ms.size(); i++)
    {
        j << (i ? "," : "") << coll.times_ms[i];
    }
    j << "],\"flowlets\":" << counts[0]
      << ",\"moves\":" << counts[1] << ",\"moves_refused\":" << counts[2]
      << ",\"marked\":" << counts[3] << ",\"app_sent\":" << coll.appSent
      << ",\"app_received\":" << coll.appReceived << ",\"ip_sent\":" << g_bytes.hostTx
      << ",\"ip_received\":" << g_bytes.hostRx << ",\"ip_dropped\":" << g_bytes.dropped
      << ",\"packets_sent\":" << g_bytes.pktTx << ",\"packets_received\":" << g_bytes.pktRx
      << ",\"packets_dropped\":" << g_bytes.pktDropped << ",\"sim_s\":" << simSeconds << ",\"events\":" << events
      << ",\"wall_s\":" << wall << "}\n";
    if (o.out.empty())
    {
        std::cout << j.str();
    }
    else
    {
        std::ofstream f(o.out);
        f << j.str();
        if (!f)
        {
            NS_FATAL_ERROR("--out: cannot write " << o.out);
        }
    }
    return 0;
}
