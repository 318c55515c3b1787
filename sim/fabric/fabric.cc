// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
// xdpleaf-fabric: a two-tier leaf-spine Clos in ns-3 whose leaves choose
// uplinks and mark ECN with xdpleaf's own code (leaf_shim.h, compiled as
// C), running MPI-like collectives over TCP or a RoCE-like transport
// whose hosts run xdpleaf's DCQCN (dcqcn_shim.h); one cell per run, its
// step times as JSON. docs/fabric-sim.md.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "dcqcn_shim.h"
#include "leaf_shim.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
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
    std::string transport = "tcp"; // tcp | roce (RoceTransport below)
    uint32_t roceMtu = 1024;       // RoCE payload per packet (xdpleaf gen's --size)
    double roceAckTimeoutMs = 10;  // go-back-N's backup (gen's --ack-timeout)
    bool roceEcn = true;           // roce: ECT on, the switches mark
    std::string dcqcn;             // roce: [dcqcn] RP keys over the defaults
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

// ---- RoCE-like transport ---------------------------------------------

// RoCEv2's base transport header as far as the model needs it: opcode,
// AckReq, destination QP, PSN; ACKs and NAKs add an AETH, CNPs 16
// reserved bytes, and every packet ends in a 4-byte ICRC (its size
// counted here, its value not modelled). PSNs are 32 bits wide here, so
// no run wraps them.
class BthHeader : public Header
{
  public:
    enum Op : uint8_t
    {
        SEND_FIRST = 0x00,
        SEND_MIDDLE = 0x01,
        SEND_LAST = 0x02,
        SEND_ONLY = 0x04,
        ACK = 0x11,
        CNP = 0x81,
    };

    uint8_t op = SEND_ONLY;
    bool ackReq = false, nak = false; // nak: the AETH's syndrome
    uint32_t qp = 0, psn = 0;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xdpleaf::BthHeader")
                                .SetParent<Header>()
                                .SetGroupName("Internet")
                                .AddConstructor<BthHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    void Print(std::ostream& os) const override
    {
        os << "op=" << unsigned(op) << " qp=" << qp << " psn=" << psn << (nak ? " nak" : "");
    }

    uint32_t GetSerializedSize() const override
    {
        return 12 + (op == ACK ? 4 : op == CNP ? 16 : 0) + 4;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteU8(op);
        i.WriteU8(ackReq ? 0x80 : 0);
        i.WriteHtonU16(0xffff); // P_Key
        i.WriteHtonU32(qp);
        i.WriteHtonU32(psn);
        if (op == ACK)
        {
            i.WriteHtonU32(nak ? 0x60000000u : 0); // syndrome: NAK (PSN sequence error) or ACK
        }
        else if (op == CNP)
        {
            i.WriteU8(0, 16);
        }
        i.WriteHtonU32(0); // ICRC
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        op = i.ReadU8();
        ackReq = i.ReadU8() & 0x80;
        i.ReadNtohU16();
        qp = i.ReadNtohU32();
        psn = i.ReadNtohU32();
        nak = false;
        if (op == ACK)
        {
            nak = i.ReadNtohU32() != 0;
        }
        else if (op == CNP)
        {
            i.Next(16);
        }
        i.ReadNtohU32();
        return GetSerializedSize();
    }
};

// RC queue pairs between the ranks over UDP (RoCEv2's port 4791), as a
// RoCE NIC without PFC: the requester sends each message as MTU-sized
// packets with consecutive PSNs, paced at its reaction point's rate Rc
// (dcqcn_shim.h: include/dcqcn.h, started at the line rate), asks for an
// ACK on each message's last packet and every 64th PSN (xdpleaf gen
// --reliable's rule), and goes back to the PSN a NAK names, or, when an
// ACK asked for has not come within the ACK timeout, to the oldest one not
// acknowledged. The responder delivers
// in order, ACKs cumulatively, NAKs the first missing PSN once and
// discards what follows; a CE-marked packet goes to its host's
// notification point, which may answer with a CNP. Every RoCE packet is
// ECT(0) (with --roceEcn) and DSCP 26, CNPs included.
class RoceTransport
{
  public:
    using Deliver = std::function<void(uint32_t from, uint32_t to, uint64_t bytes)>;

    static constexpr uint16_t kPort = 4791;
    static constexpr uint8_t kTos = 26 << 2; // DSCP 26, the roce class

    RoceTransport(const Opts& o,
                  const std::vector<Ptr<Node>>& hosts,
                  const std::vector<Ipv4Address>& addrs,
                  const std::vector<uint64_t>& lineBps,
                  Deliver deliver)
        : m_o(o),
          m_hosts(hosts),
          m_addrs(addrs),
          m_deliver(deliver),
          m_rxQps(hosts.size(), 0),
          m_txQps(hosts.size(), 0)
    {
        if (o.roceMtu < 256 || o.roceMtu > 4096)
        {
            NS_FATAL_ERROR("--roceMtu: 256..4096 bytes");
        }
        if (o.roceAckTimeoutMs <= 0)
        {
            NS_FATAL_ERROR("--roceAckTimeoutMs: more than 0");
        }
        for (uint32_t r = 0; r < hosts.size(); r++)
        {
            char err[256];
            struct xlf_dcqcn* d = xlf_dcqcn_new(lineBps[r], o.dcqcn.c_str(), err, sizeof(err));
            if (!d)
            {
                NS_FATAL_ERROR("--dcqcn: " << err);
            }
            m_dcqcn.push_back(d);
            Ptr<Socket> s = Socket::CreateSocket(hosts[r], UdpSocketFactory::GetTypeId());
            s->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
            s->SetIpTos(Tos());
            s->SetIpRecvTos(true);
            s->SetRecvCallback(MakeCallback(&RoceTransport::ResponderRx, this));
            m_resp.push_back(s);
        }
    }

    ~RoceTransport()
    {
        for (auto& q : m_qps)
        {
            xlf_rp_free(q.rp);
        }
        for (auto* n : m_np)
        {
            xlf_np_free(n);
        }
        for (auto* d : m_dcqcn)
        {
            xlf_dcqcn_free(d);
        }
    }

    // A QP from -> to (before Start): its index.
    uint32_t Open(uint32_t from, uint32_t to)
    {
        if (m_txQps[from] >= 16384)
        {
            NS_FATAL_ERROR("host " << from << ": more than 16384 QPs");
        }
        Qp q;
        q.from = from;
        q.to = to;
        q.rxIdx = m_rxQps[to]++;
        q.rp = xlf_rp_new(m_dcqcn[from]);
        if (!q.rp)
        {
            NS_FATAL_ERROR("out of memory for a QP");
        }
        q.sock = Socket::CreateSocket(m_hosts[from], UdpSocketFactory::GetTypeId());
        q.sport = 49152 + m_txQps[from]++;
        q.sock->Bind(InetSocketAddress(Ipv4Address::GetAny(), q.sport));
        q.sock->Connect(InetSocketAddress(m_addrs[to], kPort));
        q.sock->SetIpTos(Tos());
        q.sock->SetRecvCallback(MakeCallback(&RoceTransport::RequesterRx, this));
        m_qpOfSock[PeekPointer(q.sock)] = m_qps.size();
        m_qps.push_back(q);
        return m_qps.size() - 1;
    }

    // Every host's notification point, once the QPs are open.
    void Start()
    {
        for (uint32_t r = 0; r < m_hosts.size(); r++)
        {
            struct xlf_np* n = xlf_np_new(m_dcqcn[r], m_rxQps[r]);
            if (!n)
            {
                NS_FATAL_ERROR("out of memory for host " << r << "'s NP");
            }
            m_np.push_back(n);
        }
    }

    // A message of bytes on QP i.
    void Post(uint32_t i, uint64_t bytes)
    {
        Qp& q = m_qps[i];
        if (bytes == 0)
        {
            return;
        }
        uint64_t pkts = (bytes + m_o.roceMtu - 1) / m_o.roceMtu;
        q.msgs.push_back({q.end, q.end + pkts, bytes});
        q.end += pkts;
        Kick(i);
    }

    // A full data packet's IP size: IPv4, UDP, BTH, payload, ICRC.
    static uint32_t IpBytes(uint32_t mtu)
    {
        return 20 + 8 + 12 + mtu + 4;
    }

    // Counters for the JSON, summed over the hosts and QPs.
    struct Counts
    {
        uint64_t data = 0, retx = 0, naks = 0, timeouts = 0, cnpsRx = 0;
        uint64_t np[4] = {0, 0, 0, 0}; // CE received, CNPs sent, suppressed, capped
        uint64_t rp[3] = {0, 0, ~0ull}; // CNPs taken, rate cuts, lowest Rc
    };

    Counts Totals() const
    {
        Counts c = m_counts;
        for (auto* n : m_np)
        {
            uint64_t v[4];
            xlf_np_counts(n, v);
            for (int k = 0; k < 4; k++)
            {
                c.np[k] += v[k];
            }
        }
        for (auto& q : m_qps)
        {
            uint64_t v[3];
            xlf_rp_counts(q.rp, v);
            c.rp[0] += v[0];
            c.rp[1] += v[1];
            c.rp[2] = std::min(c.rp[2], v[2]);
        }
        return c;
    }

  private:
    struct Msg
    {
        uint64_t first, end, bytes; // PSNs [first, end)
    };

    struct Qp
    {
        uint32_t from = 0, to = 0, rxIdx = 0;
        uint16_t sport = 0;
        Ptr<Socket> sock;
        struct xlf_rp* rp = nullptr;
        std::deque<Msg> msgs;         // not yet acknowledged
        uint64_t una = 0, nxt = 0, end = 0, maxSent = 0;
        uint64_t nextPs = 0;          // earliest departure, picoseconds
        EventId tx, rto;
        std::deque<std::pair<uint64_t, Time>> asked; // ACK requests out: PSN, sent
        uint64_t epsn = 0;            // responder: next PSN expected
        bool nakSent = false;         // responder: this gap NAKed
    };

    uint8_t Tos() const
    {
        return kTos | (m_o.roceEcn ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
    }

    // Start sending if there is something to send and nothing scheduled,
    // no earlier than the pacing allows.
    void Kick(uint32_t i)
    {
        Qp& q = m_qps[i];
        if (q.tx.IsRunning() || q.nxt >= q.end)
        {
            return;
        }
        uint64_t nowPs = Simulator::Now().GetNanoSeconds() * 1000;
        uint64_t waitNs = q.nextPs > nowPs ? (q.nextPs - nowPs + 999) / 1000 : 0;
        q.tx = Simulator::Schedule(NanoSeconds(waitNs), &RoceTransport::Tx, this, i);
    }

    // One packet, the next PSN, then the next departure at Rc.
    void Tx(uint32_t i)
    {
        Qp& q = m_qps[i];
        if (q.nxt >= q.end)
        {
            return;
        }
        uint64_t now = Simulator::Now().GetNanoSeconds();
        xlf_rp_rate(q.rp, now);
        const Msg* m = &q.msgs.front();
        for (auto& k : q.msgs)
        {
            if (q.nxt < k.end)
            {
                m = &k;
                break;
            }
        }
        BthHeader b;
        b.qp = i;
        b.psn = q.nxt;
        bool last = q.nxt + 1 == m->end;
        uint32_t payload = last ? m->bytes - (m->end - m->first - 1) * m_o.roceMtu : m_o.roceMtu;
        b.op = m->end - m->first == 1 ? BthHeader::SEND_ONLY
               : q.nxt == m->first    ? BthHeader::SEND_FIRST
               : last                 ? BthHeader::SEND_LAST
                                      : BthHeader::SEND_MIDDLE;
        b.ackReq = last || q.nxt % 64 == 63;
        if (b.ackReq)
        {
            q.asked.push_back({q.nxt, Simulator::Now()});
        }
        Ptr<Packet> p = Create<Packet>(payload);
        p->AddHeader(b);
        // the frame as the link carries it: UDP, IPv4, point-to-point
        uint32_t frame = p->GetSize() + 8 + 20 + 2;
        q.sock->Send(p);
        m_counts.data++;
        if (q.nxt < q.maxSent)
        {
            m_counts.retx++;
        }
        q.maxSent = std::max(q.maxSent, q.nxt + 1);
        q.nxt++;
        uint64_t rate = xlf_rp_sent(q.rp, now, frame);
        uint64_t nowPs = now * 1000;
        q.nextPs = std::max(q.nextPs, nowPs) + frame * 8000000000000ull / rate;
        ArmTimeout(i);
        Kick(i);
    }

    Time AckTimeout() const
    {
        return MicroSeconds(m_o.roceAckTimeoutMs * 1000);
    }

    // The timer of the oldest ACK request not answered: an ACK asked for
    // may take the ACK timeout from when it was asked (gen --reliable's
    // rule; from the oldest PSN not acknowledged, a QP that DCQCN slowed
    // below 64 packets per timeout would time out without any loss).
    void ArmTimeout(uint32_t i)
    {
        Qp& q = m_qps[i];
        while (!q.asked.empty() && q.asked.front().first < q.una)
        {
            q.asked.pop_front();
        }
        if (q.rto.IsRunning() || q.asked.empty())
        {
            return;
        }
        Time due = q.asked.front().second + AckTimeout();
        q.rto = Simulator::Schedule(std::max(due - Simulator::Now(), Time(0)), &RoceTransport::Timeout,
                                    this, i);
    }

    // Back to PSN psn: what was asked after it is asked again as it is
    // sent again.
    void GoBack(uint32_t i, uint64_t psn)
    {
        Qp& q = m_qps[i];
        q.nxt = psn;
        q.asked.clear();
        q.rto.Cancel();
        q.tx.Cancel();
        Kick(i);
    }

    // An ACK asked for did not come in time: back to the oldest PSN not
    // acknowledged.
    void Timeout(uint32_t i)
    {
        Qp& q = m_qps[i];
        if (q.una >= q.nxt)
        {
            q.asked.clear();
            return;
        }
        m_counts.timeouts++;
        GoBack(i, q.una);
    }

    // The requester: ACKs, NAKs and CNPs of its QP.
    void RequesterRx(Ptr<Socket> s)
    {
        uint32_t i = m_qpOfSock[PeekPointer(s)];
        Qp& q = m_qps[i];
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            BthHeader b;
            p->RemoveHeader(b);
            uint64_t now = Simulator::Now().GetNanoSeconds();
            if (b.op == BthHeader::CNP)
            {
                m_counts.cnpsRx++;
                xlf_rp_cnp(q.rp, now);
                continue;
            }
            if (b.op != BthHeader::ACK)
            {
                continue;
            }
            // an ACK acknowledges up to its PSN, a NAK everything before
            // its own; a late one (the paths differ) acknowledges nothing new
            uint64_t una = b.nak ? b.psn : uint64_t(b.psn) + 1;
            if (una > q.una)
            {
                q.una = std::min(una, q.end);
                while (!q.msgs.empty() && q.msgs.front().end <= q.una)
                {
                    q.msgs.pop_front();
                }
                q.rto.Cancel();
            }
            q.nxt = std::max(q.nxt, q.una);
            if (b.nak && b.psn >= q.una && b.psn < q.nxt)
            {
                m_counts.naks++;
                GoBack(i, b.psn);
            }
            ArmTimeout(i);
        }
    }

    // The responder: a host's data packets, whichever QP.
    void ResponderRx(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        Address from;
        while ((p = s->RecvFrom(from)))
        {
            SocketIpTosTag tos;
            bool ce = p->RemovePacketTag(tos) && (tos.GetTos() & 3) == Ipv4Header::ECN_CE;
            BthHeader b;
            p->RemoveHeader(b);
            if (b.qp >= m_qps.size() || b.op == BthHeader::ACK || b.op == BthHeader::CNP)
            {
                continue;
            }
            Qp& q = m_qps[b.qp];
            uint64_t now = Simulator::Now().GetNanoSeconds();
            if (ce && xlf_np_ce(m_np[q.to], q.rxIdx, now))
            {
                Respond(q, BthHeader::CNP, false, 0);
            }
            if (b.psn == q.epsn)
            {
                q.epsn++;
                q.nakSent = false;
                if (b.ackReq)
                {
                    Respond(q, BthHeader::ACK, false, q.epsn - 1);
                }
                m_deliver(q.from, q.to, p->GetSize());
            }
            else if (b.psn > q.epsn)
            {
                if (!q.nakSent)
                {
                    q.nakSent = true;
                    Respond(q, BthHeader::ACK, true, q.epsn);
                }
            }
            else if (b.ackReq)
            {
                Respond(q, BthHeader::ACK, false, q.epsn - 1); // a duplicate
            }
        }
    }

    // An ACK, NAK or CNP from q's responder to its requester's port.
    void Respond(const Qp& q, uint8_t op, bool nak, uint64_t psn)
    {
        BthHeader b;
        b.op = op;
        b.nak = nak;
        b.qp = &q - m_qps.data();
        b.psn = psn;
        Ptr<Packet> p = Create<Packet>(0);
        p->AddHeader(b);
        // ns-3's UDP socket applies its TOS on Send only, not on SendTo
        SocketIpTosTag tos;
        tos.SetTos(Tos());
        p->AddPacketTag(tos);
        m_resp[q.to]->SendTo(p, 0, InetSocketAddress(m_addrs[q.from], q.sport));
    }

    const Opts& m_o;
    std::vector<Ptr<Node>> m_hosts;
    std::vector<Ipv4Address> m_addrs;
    Deliver m_deliver;
    std::vector<uint32_t> m_rxQps, m_txQps; // QPs per host, in and out
    std::vector<struct xlf_dcqcn*> m_dcqcn;
    std::vector<struct xlf_np*> m_np;
    std::vector<Ptr<Socket>> m_resp; // per host, bound to 4791
    std::vector<Qp> m_qps;
    std::map<Socket*, uint32_t> m_qpOfSock;
    Counts m_counts;
};

// Each host's line rate, where its reaction point starts: its link's, or
// with --lab the NIC rate bench-jct's roce cells give a sender (its leaf's
// aggregate uplink capacity / H).
std::vector<uint64_t>
RoceLineRates(const Opts& o, const std::vector<uint64_t>& aggregate, uint32_t hosts)
{
    std::vector<uint64_t> r(hosts);
    for (uint32_t i = 0; i < hosts; i++)
    {
        r[i] = o.lab ? aggregate[i % o.leaves] / o.hostsPerLeaf : RateOf(o.hostRate);
    }
    return r;
}

// roce: a switch port that is not an xdpleaf leaf's uplink (those mark by
// their phantom queues) marks ECN by RED on its real queue, at the roce
// class's profile fitted to the port's buffer (xlf_roce_profile): the
// instantaneous queue (QW 1), Kmin..Kmax linear to Pmax, everything past
// Kmax marked (not gentle, no hard drop), tail drop at the buffer. RED's
// byte mode scales a packet's probability by its size over the mean
// packet's: the mean is the data packet's, which keeps the profile's.
void
RoceRedQueue(TrafficControlHelper& t, uint64_t bufferBytes, uint64_t bps, uint32_t dataPacket)
{
    uint32_t kmin, kmax;
    double pmax;
    xlf_roce_profile(bufferBytes, &kmin, &kmax, &pmax);
    t.SetRootQueueDisc("ns3::RedQueueDisc",
                       "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, bufferBytes)),
                       "MinTh", DoubleValue(kmin),
                       "MaxTh", DoubleValue(std::max<double>(kmax, kmin + 1)),
                       "LInterm", DoubleValue(1 / pmax),
                       "QW", DoubleValue(1),
                       "Gentle", BooleanValue(false),
                       "UseEcn", BooleanValue(true),
                       "UseHardDrop", BooleanValue(false),
                       "MeanPktSize", UintegerValue(dataPacket),
                       "LinkBandwidth", DataRateValue(DataRate(bps)));
}

uint64_t g_redMarked = 0;

void
RedMarked(Ptr<const QueueDiscItem>, const char*)
{
    g_redMarked++;
}

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

    // The RoCE-like transport instead of TCP (before Start).
    void UseRoce(RoceTransport* roce)
    {
        m_roce = roce;
        m_roceQps.resize(m_n * m_n);
    }

    // roce: bytes of from's messages to `to` delivered in order.
    void Delivered(uint32_t from, uint32_t to, uint64_t bytes)
    {
        m_delivered[from * m_n + to] += bytes;
        appReceived += bytes;
        Advance(from);
        Advance(to);
    }

    void Start()
    {
        if (m_roce)
        {
            StartRoce();
            return;
        }
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
    // The QPs every rank's phases need, channels per peer, as Start's
    // connections.
    void StartRoce()
    {
        for (uint32_t r = 0; r < m_n; r++)
        {
            for (uint32_t p = 0; p < m_phases; p++)
            {
                uint32_t to = m_sched[r][p].to;
                auto& qs = m_roceQps[r * m_n + to];
                for (uint32_t c = 0; qs.empty() && c < m_o.channels; c++)
                {
                    qs.push_back(m_roce->Open(r, to));
                }
            }
        }
        m_roce->Start();
        Simulator::Schedule(MilliSeconds(100), &Collective::Iteration, this);
    }

    // roce: Send's split over the channels' QPs.
    void SendRoce(uint32_t r, const Phase& ph)
    {
        auto& qs = m_roceQps[r * m_n + ph.to];
        uint64_t each = ph.bytes / qs.size();
        m_expected[r * m_n + ph.to] += ph.bytes;
        for (size_t c = 0; c < qs.size(); c++)
        {
            uint64_t b = c + 1 == qs.size() ? ph.bytes - each * (qs.size() - 1) : each;
            appSent += b;
            m_roce->Post(qs[c], b);
        }
    }

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
        if (m_roce)
        {
            SendRoce(r, ph);
            return;
        }
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
    RoceTransport* m_roce = nullptr;
    std::vector<std::vector<uint32_t>> m_roceQps; // [from * n + to]
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
    cmd.AddValue("transport", "tcp | roce (UDP, go-back-N, xdpleaf's DCQCN)", o.transport);
    cmd.AddValue("roceMtu", "roce: payload bytes per packet", o.roceMtu);
    cmd.AddValue("roceAckTimeoutMs", "roce: go-back-N's ACK timeout", o.roceAckTimeoutMs);
    cmd.AddValue("roceEcn", "roce: packets ECT(0), the switches mark (0: Not-ECT, no marks)", o.roceEcn);
    cmd.AddValue("dcqcn",
                 "roce: DCQCN RP parameters over the [dcqcn] defaults, as that section's keys, "
                 "comma-separated (e.g. min_rate=1M,r_ai=1M,r_hai=5M)",
                 o.dcqcn);
    cmd.AddValue("out", "write the JSON here (default stdout)", o.out);
    cmd.Parse(argc, argv);

    bool ref = o.fabric == "ref", ecmp = o.fabric == "ecmp";
    int mode = ref || ecmp ? xlf_lb_mode("hash") : xlf_lb_mode(o.fabric.c_str());
    if (mode < 0)
    {
        NS_FATAL_ERROR("--fabric: '" << o.fabric
                                      << "' is not ref, ecmp, hash, flowlet, flowlet-random or spray");
    }
    bool roce = o.transport == "roce";
    if (!roce && o.transport != "tcp")
    {
        NS_FATAL_ERROR("--transport: '" << o.transport << "' is not tcp or roce");
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
    auto shape = [&](Ptr<NetDevice> d, uint64_t bps, bool red) {
        auto pd = DynamicCast<PointToPointNetDevice>(d);
        pd->SetDataRate(DataRate(bps));
        pd->GetQueue()->SetMaxSize(QueueSize("1p"));
        uint64_t b = std::max<uint64_t>((uint64_t)(bps / 8 * o.bufferUs / 1e6), 2 * 1500);
        TrafficControlHelper t;
        if (red)
        {
            RoceRedQueue(t, b, bps, RoceTransport::IpBytes(o.roceMtu));
        }
        else
        {
            t.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, b)));
        }
        QueueDiscContainer q = t.Install(d);
        if (red)
        {
            q.Get(0)->TraceConnectWithoutContext("Mark", MakeCallback(&RedMarked));
        }
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
        // roce: every switch port marks, xdpleaf's uplinks by their
        // phantom queues, the others by RED; hosts' ports never
        bool redSwitch = roce && o.roceEcn;
        shape(k.d.Get(0), k.bps0, redSwitch && k.host == ~0u && (ref || ecmp));
        shape(k.d.Get(1), k.bps1, redSwitch);
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
        if (roce)
        {
            xlf_leaf_roce(shim);
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
    std::unique_ptr<RoceTransport> roceT;
    if (roce)
    {
        roceT = std::make_unique<RoceTransport>(
            o, ranks, rankAddr, RoceLineRates(o, aggregate, ranks.size()),
            [&coll](uint32_t from, uint32_t to, uint64_t bytes) { coll.Delivered(from, to, bytes); });
        coll.UseRoce(roceT.get());
    }
    // from the first event on: the nodes (their traffic control) are
    // initialised when the simulation starts
    Simulator::ScheduleNow(&Collective::Start, &coll);
    Simulator::Run();
    uint64_t events = Simulator::GetEventCount();
    double simSeconds = Simulator::Now().GetSeconds();
    RoceTransport::Counts rc;
    if (roceT)
    {
        rc = roceT->Totals();
    }
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
      << ",\"packets_dropped\":" << g_bytes.pktDropped << ",\"sim_s\":" << simSeconds << ",\"events\":" << events;
    if (roce)
    {
        j << ",\"transport\":\"roce\",\"dcqcn\":\"" << o.dcqcn << "\",\"roce_mtu\":" << o.roceMtu << ",\"roce_ecn\":" << (o.roceEcn ? "true" : "false")
          << ",\"roce_data_packets\":" << rc.data << ",\"roce_retransmitted\":" << rc.retx
          << ",\"roce_naks\":" << rc.naks << ",\"roce_timeouts\":" << rc.timeouts
          << ",\"red_marked\":" << g_redMarked << ",\"ce_received\":" << rc.np[0]
          << ",\"cnps_sent\":" << rc.np[1] << ",\"cnps_suppressed\":" << rc.np[2]
          << ",\"cnps_capped\":" << rc.np[3] << ",\"cnps_received\":" << rc.cnpsRx
          << ",\"rate_cuts\":" << rc.rp[1] << ",\"min_rate_bps\":" << rc.rp[2];
    }
    j << ",\"wall_s\":" << wall << "}\n";
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
