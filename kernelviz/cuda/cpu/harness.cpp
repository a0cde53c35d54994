// Runs the launches of one kernel of this folder on the CPU through shim.h; kernelviz/cuda/cpu.py builds and drives
// it. It knows no kernel: cpu.py says, from the kernel's descriptor (kernelviz/cuda/topics/), which buffers to make,
// which launches to run with which arguments, and which template instances to build.
//
// Built with -DKV_FILE="path/to/kernel.cu" and -DKV_ENTRIES="E(name<...>) E(...)", the template instances to
// build (as kernels.plan names them, e.g. E(fa2<32, 32, 64>)).
// argv: schedule[:copies] threads, then the buffers: their count, and for each its name, element type (f: float,
// h: 16-bit fp16/bf16 bits, i: int), elements and role (i: input, o: output); then the launches: their count, and for
// each its template instance, grid x y z, bytes of dynamic shared memory a block, the buffer to watch during it (-1:
// none; see below), and its arguments: their count and each as bK (buffer K), iV (int V), fV (float V) or
// tK,rank,dims...,box...,swizzle (a TMA tensor map of buffer K, dims and box innermost first:
// kvshim::make_tensor_map), in the order of its __global__ signature. copies (cpu/async.h): "late", or "random=SEED"
// (the default: random=0).
// stdin: the inputs' bytes, in order; stdout: the outputs' bytes, in order; the last line of stderr, after a run that
// succeeds: "counters: ldmatrix_phases=P ldmatrix_wavefronts=W" (cpu/warp.h).
//
// Every buffer sits between two guard zones filled with a NaN pattern, and every output starts filled with it:
// a read past an input gives NaN in the answer, and a write past a buffer, or an output element never written,
// is reported (exit status 3). A watched buffer (an output that blocks share, such as FA2 backward's dQ) may change
// during its launch only through atomicAdd (shim.h's watch): a plain store into it is reported (exit status 3).
#include "shim.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include KV_FILE

namespace {

constexpr uint32_t POISON = 0x7fc0dead;  // a quiet NaN no arithmetic produces (as an int: ~2^31, outside any pool)
constexpr uint16_t POISON16 = 0x7fad;     // a NaN both as fp16 and as bf16, which no conversion produces (0x7fff)
constexpr size_t GUARD = 4096;            // elements on each side of a buffer

// A buffer of 4-byte (float, int) or 2-byte (fp16/bf16 bits) elements between guard zones, as raw words.
struct Buffer {
    std::string name;
    char type;  // 'f', 'h' or 'i'
    size_t n;
    bool output;
    std::vector<uint32_t> words;  // 2-byte elements use the low half of the bytes

    Buffer(std::string name_, char type_, size_t n_, bool output_)
        : name(std::move(name_)), type(type_), n(n_), output(output_) {
        if (type != 'f' && type != 'h' && type != 'i') throw std::runtime_error("bad element type for " + name);
        words.resize((bytes(n + 2 * GUARD) + 3) / 4);
        for (size_t k = 0; k < n + 2 * GUARD; k++) set(k, poison());
    }
    size_t size() const { return type == 'h' ? 2 : 4; }
    size_t bytes(size_t count) const { return count * size(); }
    unsigned char* base() { return reinterpret_cast<unsigned char*>(words.data()); }
    const unsigned char* base() const { return reinterpret_cast<const unsigned char*>(words.data()); }
    uint32_t poison() const { return type == 'h' ? POISON16 : POISON; }
    uint32_t get(size_t k) const {
        uint32_t x = 0;
        std::memcpy(&x, base() + bytes(k), size());
        return x;
    }
    void set(size_t k, uint32_t x) { std::memcpy(base() + bytes(k), &x, size()); }
    void* ptr() { return base() + bytes(GUARD); }
    bool check() const {  // guards intact; for an output, every element written
        for (size_t k = 0; k < n + 2 * GUARD; k++) {
            bool inside = k >= GUARD && k < GUARD + n, poisoned = get(k) == poison();
            if (!inside && !poisoned) {
                long at = long(k) - long(GUARD);
                std::fprintf(stderr, "write out of bounds: %s[%ld] (size %zu)\n", name.c_str(), at, n);
                return false;
            }
            if (inside && output && poisoned) {
                std::fprintf(stderr, "never written: %s[%zu] (size %zu)\n", name.c_str(), k - GUARD, n);
                return false;
            }
        }
        return true;
    }
    void read() {
        if (std::fread(ptr(), size(), n, stdin) != n) throw std::runtime_error("short input for " + name);
    }
    void write() { std::fwrite(ptr(), size(), n, stdout); }
};

// One argument of a launch: a buffer, or an int or float scalar.
struct Value {
    char kind;  // 'b', 'i', 'f' or 't' (a tensor map of `buffer`)
    Buffer* buffer = nullptr;
    int i = 0;
    float f = 0;
    int rank = 0, swizzle = 0;  // a tensor map's
    uint64_t dims[5] = {};
    uint32_t box[5] = {};

    template <typename T>
    T as(const std::string& launch, size_t at) const {
        auto wrong = [&](const char* wants) {
            std::string given = kind == 'i'   ? "an int"
                                : kind == 'f' ? "a float"
                                : kind == 't' ? "a tensor map of " + buffer->name
                                              : "buffer " + buffer->name;
            return std::runtime_error(launch + ": argument " + std::to_string(at) + " is " + wants +
                                      ", not what the host passed (" + given + ")");
        };
        if constexpr (std::is_pointer_v<T>) {
            using E = std::remove_cv_t<std::remove_pointer_t<T>>;
            char want = std::is_same_v<E, float> ? 'f' : std::is_same_v<E, int> ? 'i' : sizeof(E) == 2 ? 'h' : '?';
            if (kind != 'b' || buffer->type != want) throw wrong("a pointer to another element type");
            return static_cast<T>(buffer->ptr());
        } else if constexpr (std::is_same_v<T, float>) {
            if (kind != 'f') throw wrong("a float");
            return f;
        } else if constexpr (std::is_same_v<T, kvshim::TensorMap>) {
            if (kind != 't') throw wrong("a tensor map");
            return kvshim::make_tensor_map(buffer->ptr(), int(buffer->size()), rank, dims, box, swizzle);
        } else {
            static_assert(std::is_same_v<T, int>, "kernel arguments are pointers, ints and floats");
            if (kind != 'i') throw wrong("an int");
            return i;
        }
    }
};

struct Call {
    std::string name;
    dim3 grid, block;
    size_t dynamic_bytes = 0;
    kvshim::Schedule schedule;
    std::vector<Value> args;
};

template <typename... Params, size_t... I>
void invoke(void (*kernel)(Params...), const Call& c, std::index_sequence<I...>) {
    kvshim::dynamic_bytes = c.dynamic_bytes;
    kvshim::launch(kernel, c.grid, c.block, c.schedule, c.args[I].template as<Params>(c.name, I)...);
}

// Launch `kernel` with the call's arguments, converted to its parameters' types (checked against the host's kinds).
template <typename... Params>
void run(void (*kernel)(Params...), const Call& c) {
    if (c.args.size() != sizeof...(Params))
        throw std::runtime_error(c.name + " takes " + std::to_string(sizeof...(Params)) + " arguments, given " +
                                 std::to_string(c.args.size()));
    invoke(kernel, c, std::index_sequence_for<Params...>{});
}

struct Entry {
    const char* name;
    std::function<void(const Call&)> run;
};

#define E(...) {#__VA_ARGS__, [](const Call& c) { run(__VA_ARGS__, c); }},
const Entry ENTRIES[] = {KV_ENTRIES};
#undef E

// A tensor-map argument "tK,rank,dims...,box...,swizzle" of `buffers`.
Value tensor_map(const std::string& a, std::vector<Buffer>& buffers) {
    std::vector<long> n;
    for (size_t at = 1; at <= a.size();) {
        size_t end = a.find(',', at);
        if (end == std::string::npos) end = a.size();
        n.push_back(std::stol(a.substr(at, end - at)));
        at = end + 1;
    }
    Value v{'t'};
    if (n.size() < 2 || n[1] < 1 || n[1] > 5 || n.size() != size_t(3 + 2 * n[1]))
        throw std::runtime_error("bad tensor map argument " + a);
    v.buffer = &buffers.at(size_t(n[0]));
    v.rank = int(n[1]);
    for (int k = 0; k < v.rank; k++) v.dims[k] = uint64_t(n[2 + k]), v.box[k] = uint32_t(n[2 + v.rank + k]);
    v.swizzle = int(n.back());
    return v;
}

// Reads argv in order.
struct Words {
    int argc, at;
    char** argv;
    std::string next() {
        if (at >= argc) throw std::runtime_error("argv ends early");
        return argv[at++];
    }
    long number() { return std::stol(next()); }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s schedule threads buffers... launches... (see harness.cpp)\n", argv[0]);
        return 2;
    }
    try {
        Words w{argc, 1, argv};
        std::string schedule = w.next(), copies = "random=0";
        if (auto colon = schedule.find(':'); colon != std::string::npos) {
            copies = schedule.substr(colon + 1);
            schedule = schedule.substr(0, colon);
        }
        if (copies == "late") kvshim::copies_mode = kvshim::Copies::late;
        else if (copies.rfind("random=", 0) == 0) kvshim::copies_seed = std::stoull(copies.substr(7));
        else throw std::runtime_error("copies must be late or random=SEED, not " + copies);
        auto order = schedule == "forward"    ? kvshim::Schedule::forward
                     : schedule == "backward" ? kvshim::Schedule::backward
                                              : kvshim::Schedule::threads;
        unsigned threads = unsigned(w.number());
        std::vector<Buffer> buffers;
        for (long k = 0, count = w.number(); k < count; k++) {
            std::string name = w.next(), type = w.next();
            long n = w.number();
            buffers.emplace_back(name, type.at(0), size_t(n), w.next() == "o");
        }
        std::vector<std::pair<Call, long>> calls;  // each with the buffer it watches
        for (long k = 0, count = w.number(); k < count; k++) {
            Call c;
            c.name = w.next();
            c.grid = {unsigned(w.number()), unsigned(w.number()), unsigned(w.number())};
            c.block = {threads, 1, 1};
            c.schedule = order;
            c.dynamic_bytes = size_t(w.number());
            long watch = w.number();
            for (long j = 0, args = w.number(); j < args; j++) {
                std::string a = w.next();
                Value v{a.at(0)};
                if (v.kind == 'b') v.buffer = &buffers.at(std::stoul(a.substr(1)));
                else if (v.kind == 't') v = tensor_map(a, buffers);
                else if (v.kind == 'i') v.i = std::stoi(a.substr(1));
                else if (v.kind == 'f') v.f = std::strtof(a.c_str() + 1, nullptr);
                else throw std::runtime_error("bad argument " + a);
                c.args.push_back(v);
            }
            calls.emplace_back(std::move(c), watch);
        }
        for (auto& b : buffers)
            if (!b.output) b.read();
        for (auto& [c, watch] : calls) {
            const Entry* entry = nullptr;
            for (const auto& e : ENTRIES)
                if (c.name == e.name) entry = &e;
            if (!entry) {
                std::fprintf(stderr, "not built for %s\n", c.name.c_str());
                return 4;
            }
            Buffer* watched = watch >= 0 ? &buffers.at(size_t(watch)) : nullptr;
            if (watched) kvshim::watch(static_cast<float*>(watched->ptr()), watched->n);
            entry->run(c);
            if (!watched) continue;
            if (long bad = kvshim::unwatch(); bad >= 0) {
                std::fprintf(stderr, "not atomic: %s[%ld] was changed by a plain store, not atomicAdd (on a GPU the "
                             "blocks that add into it race, and updates are lost)\n", watched->name.c_str(), bad);
                return 3;
            }
        }
        bool ok = true;
        for (const auto& b : buffers) ok = b.check() && ok;
        if (!ok) return 3;
        for (auto& b : buffers)
            if (b.output) b.write();
        std::fprintf(stderr, "counters: ldmatrix_phases=%ld ldmatrix_wavefronts=%ld\n",
                     kvshim::counters.ldmatrix_phases.load(), kvshim::counters.ldmatrix_wavefronts.load());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
