/*
 * A SimGrid platform whose nodes have a memory system: every rank is a host
 * of its own, and the ranks of a node share that node's memory.
 *
 *   sim/platforms.py --node calibrated dragonfly 16 16 OUT   (writes OUT/...conf and .hosts)
 *   XCHG_SIM_PLATFORM=OUT/dragonfly-16x16-calibrated.conf \
 *       smpirun -platform build-smpi/sim/libxchg-node-platform.so -hostfile OUT/...hosts ...
 *
 * Why. The XML clusters of sim/platforms.py give a node (a host with Q
 * cores) one loopback link, which SimGrid shares as a fat pipe: every flow
 * inside the node gets the whole loopback bandwidth and the node has no
 * aggregate limit, so moving every byte once more inside the node costs
 * almost nothing. Real nodes have two limits: what one core copies per
 * second, and what the node's memory delivers when all cores copy at once.
 *
 * Model. Node n is a full-routing zone holding Q hosts node-n-c (one rank
 * each) and a router, its gateway to the network:
 *   core link node-n-c (split duplex, core_bw each way, core_lat each way):
 *       UP is what rank c copies out, DOWN what it copies in;
 *   memory link node-n-mem (shared, mem_bw): every copy between two ranks of
 *       the node;
 *   rank c -> rank d of the node: [core c UP, memory, core d DOWN], latency
 *       2 core_lat; rank c -> itself: [memory];
 *   rank c -> the network: [node-n-dma UP] (back: DOWN), split duplex,
 *       1 TB/s, no latency: nothing inside the node (SimGrid forbids empty
 *       routes; a fat pipe used in both directions made the solver 15x
 *       slower).
 *       The NIC reads and writes memory by DMA; at 2 x 25 GB/s per node that
 *       is left out of the memory link (sim/README.md).
 * The nodes are the leaves of the network zone, built by SimGrid's cluster
 * constructors with the links of the XML platforms: dragonfly, fat tree,
 * torus, and flat as a one-level fat tree (one non-blocking switch, a
 * private link per node: the XML crossbar without its fat-pipe backbone).
 *
 * Configuration: the file named by XCHG_SIM_PLATFORM, "key value" lines
 * written by sim/platforms.py (kind, nodes, q, link_bw, link_lat, topo,
 * limiter_bw, core_bw, core_lat, mem_bw, speed; SI units).
 */
#include <simgrid/s4u.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

namespace {

struct Config {
    std::map<std::string, std::string> values;
    std::string file;

    std::string text(const std::string& key) const
    {
        auto it = values.find(key);
        if (it == values.end())
            throw std::invalid_argument(file + ": missing key '" + key + "'");
        return it->second;
    }
    double number(const std::string& key) const
    {
        std::string v = text(key);
        char* end     = nullptr;
        double x      = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0' || x < 0)
            throw std::invalid_argument(file + ": '" + key + "' is not a non-negative number: " + v);
        return x;
    }
    unsigned long count(const std::string& key) const
    {
        double x = number(key);
        if (x < 1 || x != static_cast<double>(static_cast<unsigned long>(x)))
            throw std::invalid_argument(file + ": '" + key + "' must be a positive integer");
        return static_cast<unsigned long>(x);
    }
};

Config read_config()
{
    const char* path = std::getenv("XCHG_SIM_PLATFORM");
    if (!path || !*path)
        throw std::invalid_argument("XCHG_SIM_PLATFORM is not set: name the .conf file written by "
                                    "sim/platforms.py --node MODEL KIND NODES Q OUTDIR");
    Config cfg;
    cfg.file = path;
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument(cfg.file + ": cannot be read");
    std::string line;
    for (int lineno = 1; std::getline(in, line); lineno++) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream words(line);
        std::string key, value, extra;
        if (!(words >> key >> value) || (words >> extra))
            throw std::invalid_argument(cfg.file + ":" + std::to_string(lineno) + ": expected 'key value'");
        cfg.values[key] = value;
    }
    return cfg;
}

std::vector<unsigned long> parse_list(const std::string& text)
{
    std::vector<unsigned long> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        out.push_back(std::stoul(item));
    return out;
}

/* Node `id` as a zone of Q rank hosts (see the header); returns the zone's
 * netpoint and its gateway, as SimGrid's cluster callbacks expect. */
std::pair<NetPoint*, NetPoint*> create_node(const Config& cfg, const sg4::NetZone* parent, unsigned long id)
{
    const unsigned long q = cfg.count("q");
    const std::string name = "node-" + std::to_string(id);
    sg4::NetZone* zone     = sg4::create_full_zone(name);
    zone->set_parent(parent);
    NetPoint* gateway = zone->create_router(name + "-gw");
    sg4::Link* memory = zone->create_link(name + "-mem", cfg.number("mem_bw"))
                            ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
                            ->seal();
    using Dir = sg4::LinkInRoute::Direction;
    sg4::SplitDuplexLink* dma = zone->create_split_duplex_link(name + "-dma", 1e12);
    dma->seal();
    std::vector<NetPoint*> ranks;
    std::vector<sg4::SplitDuplexLink*> cores;
    for (unsigned long c = 0; c < q; c++) {
        const std::string rank = name + "-" + std::to_string(c);
        ranks.push_back(zone->create_host(rank, cfg.number("speed"))->seal()->get_netpoint());
        cores.push_back(zone->create_split_duplex_link(rank + "-core", cfg.number("core_bw")));
        cores.back()->set_latency(cfg.number("core_lat"))->seal();
    }
    for (unsigned long a = 0; a < q; a++) {
        zone->add_route(ranks[a], ranks[a], nullptr, nullptr, {sg4::LinkInRoute(memory)}, false);
        zone->add_route(ranks[a], gateway, nullptr, nullptr, {sg4::LinkInRoute(dma, Dir::UP)}, true);
        for (unsigned long b = 0; b < q; b++)
            if (a != b)
                zone->add_route(ranks[a], ranks[b], nullptr, nullptr,
                                {sg4::LinkInRoute(cores[a], Dir::UP), sg4::LinkInRoute(memory),
                                 sg4::LinkInRoute(cores[b], Dir::DOWN)},
                                false);
    }
    zone->seal();
    return {zone->get_netpoint(), gateway};
}

/* Network links are full duplex, like the XML clusters' default. */
constexpr auto network_policy = sg4::Link::SharingPolicy::SPLITDUPLEX;

} // namespace

extern "C" void load_platform(const sg4::Engine& /*engine*/);

void load_platform(const sg4::Engine& engine)
{
    const Config cfg          = read_config();
    const sg4::NetZone* root  = engine.get_netzone_root();
    const std::string kind    = cfg.text("kind");
    const double bw           = cfg.number("link_bw");
    const double lat          = cfg.number("link_lat");
    auto node_cb = [&cfg](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
        return create_node(cfg, zone, id);
    };
    sg4::ClusterCallbacks callbacks(node_cb);
    if (cfg.number("limiter_bw") > 0) {
        callbacks.limiter = [&cfg](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
            return zone->create_link("node-" + std::to_string(id) + "-limiter", cfg.number("limiter_bw"))->seal();
        };
    }
    sg4::NetZone* network = nullptr;
    if (kind == "dragonfly") {
        auto p = parse_list(cfg.text("topo")); /* groups,glinks,chassis,clinks,routers,rlinks,nodes */
        if (p.size() != 7)
            throw std::invalid_argument(cfg.file + ": dragonfly topo needs 7 numbers");
        network = sg4::create_dragonfly_zone(kind, root, sg4::DragonflyParams({p[0], p[1]}, {p[2], p[3]},
                                                                              {p[4], p[5]}, p[6]),
                                             callbacks, bw, lat, network_policy);
    } else if (kind == "fattree" || kind == "flat") { /* flat: one switch, topo 1,N,1,1 */
        auto p = parse_list(cfg.text("topo")); /* levels, then down, up, count per level */
        unsigned levels = p.empty() ? 0 : p[0];
        if (p.size() != 1 + 3 * levels)
            throw std::invalid_argument(cfg.file + ": fattree topo needs levels then 3 x levels numbers");
        std::vector<unsigned> down(p.begin() + 1, p.begin() + 1 + levels);
        std::vector<unsigned> up(p.begin() + 1 + levels, p.begin() + 1 + 2 * levels);
        std::vector<unsigned> number(p.begin() + 1 + 2 * levels, p.end());
        network = sg4::create_fatTree_zone(kind, root, sg4::FatTreeParams(levels, down, up, number), callbacks,
                                           bw, lat, network_policy);
    } else if (kind == "torus") {
        network = sg4::create_torus_zone(kind, root, parse_list(cfg.text("topo")), callbacks, bw, lat,
                                         network_policy);
    } else {
        throw std::invalid_argument(cfg.file + ": unknown kind '" + kind + "' (flat, dragonfly, fattree, torus)");
    }
    network->seal();
}
