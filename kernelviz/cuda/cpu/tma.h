// The Tensor Memory Accelerator on the CPU (included by hopper.h; the API is documented there): tensor maps, loads
// that land later and complete a transaction count on an mbarrier, stores in bulk groups, fence.proxy.async.
//
// A box is laid out in shared memory as a dense row-major array (dim 0 innermost), each byte address then swizzled
// (kernelviz/cuda/hopper.py, kv_swizzle) on its offset in the shared window, whose base is 1024-aligned as on a GPU.
// Elements of the box outside the tensor are zero on a load and not written on a store.
#pragma once

#include <array>
#include <stdexcept>

namespace kvshim {

inline TensorMap make_tensor_map(void* base, int elem_bytes, int rank, const uint64_t* dims, const uint32_t* box,
                                 int swizzle) {
    auto bad = [](const std::string& why) { return std::invalid_argument("make_tensor_map: " + why); };
    if (rank < 1 || rank > 5) throw bad("rank " + std::to_string(rank) + " outside 1..5");
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
        throw bad("element size " + std::to_string(elem_bytes) + " is not 1, 2, 4 or 8 bytes");
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
        throw bad("swizzle " + std::to_string(swizzle) + " is not 0, 32, 64 or 128 bytes");
    TensorMap map;
    map.base = base;
    map.elem_bytes = elem_bytes;
    map.rank = rank;
    map.swizzle = swizzle;
    uint64_t stride = uint64_t(elem_bytes);
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 1) throw bad("dim " + std::to_string(k) + " is empty");
        if (box[k] < 1 || box[k] > 256) throw bad("box dim " + std::to_string(k) + " outside 1..256");
        map.dims[k] = dims[k];
        map.box[k] = box[k];
        map.strides[k] = stride;
        if (k > 0 && stride % 16) throw bad("the byte stride of dim " + std::to_string(k) + " is not a multiple of 16");
        stride *= dims[k];
    }
    if (box[0] * elem_bytes % 16) throw bad("the box's inner dim is not a multiple of 16 bytes");
    if (swizzle && box[0] * unsigned(elem_bytes) > unsigned(swizzle))
        throw bad("the box's inner dim spans " + std::to_string(box[0] * elem_bytes) + " bytes, more than the " +
                  std::to_string(swizzle) + "-byte swizzle");
    return map;
}

inline size_t box_elements(const TensorMap& map) {
    size_t n = 1;
    for (int k = 0; k < map.rank; k++) n *= map.box[k];
    return n;
}

// Calls f(shared byte address, global element address or nullptr when outside the tensor) for each box element.
template <typename F>
void each_box_element(const TensorMap& map, uint32_t at, const int* coords, F f) {
    size_t n = box_elements(map);
    for (size_t e = 0; e < n; e++) {
        size_t rest = e;
        bool inside = true;
        uint64_t offset = 0;
        for (int k = 0; k < map.rank; k++) {
            long g = long(coords[k]) + long(rest % map.box[k]);
            rest /= map.box[k];
            if (g < 0 || g >= long(map.dims[k])) inside = false;
            else offset += uint64_t(g) * map.strides[k];
        }
        uint32_t logical = at + uint32_t(e) * map.elem_bytes;
        f(kv_swizzle(logical, map.swizzle), inside ? static_cast<uint8_t*>(map.base) + offset : nullptr);
    }
}

inline void check_box(const TensorMap& map, uint32_t at, int coords_given, const char* what) {
    if (coords_given != map.rank)
        hopper_error("%s: the tensor map has rank %d, not %d", what, map.rank, coords_given);
    if (at % 128) hopper_error("%s: shared offset %u is not 128-byte aligned", what, at);
    if (at + box_elements(map) * map.elem_bytes > shared.bytes())
        hopper_error("%s: the box does not fit in shared memory from offset %u", what, at);
}

inline const char* wgmma_reading(uint32_t lo, uint32_t hi);  // wgmma.h: a pending wgmma that reads [lo, hi)

inline void tma_load(void* dst, const CUtensorMap* map_given, uint64_t* bar, int rank, const int* coords) {
    std::lock_guard lock(async_lock);
    const char* what = "tma_load";
    TensorMap map = *map_given;
    uint32_t at = offset_of(dst, what), bar_at = offset_of(bar, what);
    check_box(map, at, rank, what);
    mbarrier_at(bar, what);
    uint32_t bytes = uint32_t(box_elements(map) * map.elem_bytes);
    uint32_t lo = at, hi = at + bytes;  // a swizzle moves bytes within their 128-byte line
    if (const char* who = wgmma_reading(lo, hi))
        hopper_error("tma_load into shared memory [%u, %u) that %s still reads (a stage refilled before its consumers "
                     "released it)",
                     lo, hi, who);
    std::array<int, 5> c{};
    std::copy(coords, coords + rank, c.begin());
    int issuer = thread_rank;
    issue_async([=] {
        if (const char* who = wgmma_reading(lo, hi))
            hopper_error("tma_load of thread %d landing in shared memory [%u, %u) that %s still reads (a stage "
                         "refilled before its consumers released it)",
                         issuer, lo, hi, who);
        uint8_t* smem = shared.base();
        each_box_element(map, at, c.data(), [&](uint32_t to, const uint8_t* from) {
            if (from) std::memcpy(smem + to, from, map.elem_bytes);
            else std::memset(smem + to, 0, map.elem_bytes);
            std::memcpy(shared.view.data() + to, smem + to, map.elem_bytes);
        });
        complete_tx(bar_at, bytes);
    });
}

struct StoreGroups {
    std::vector<int> open;                      // per thread: its group that commit closes
    std::vector<std::map<int, int>> in_flight;  // per thread: stores in flight by group
};
inline StoreGroups store_groups;

inline void reset_tma(int threads) {
    store_groups.open.assign(threads, 0);
    store_groups.in_flight.assign(threads, {});
}

inline void check_box_fenced(const TensorMap& map, uint32_t at, const int* c, const char* what) {
    each_box_element(map, at, c, [&](uint32_t from, uint8_t*) {
        for (int b = 0; b < map.elem_bytes; b++) check_unfenced(from + b, what);
    });
}

inline void tma_store(const CUtensorMap* map_given, const void* src, int rank, const int* coords) {
    std::lock_guard lock(async_lock);
    const char* what = "tma_store";
    TensorMap map = *map_given;
    uint32_t at = offset_of(src, what);
    check_box(map, at, rank, what);
    std::array<int, 5> c{};
    std::copy(coords, coords + rank, c.begin());
    check_box_fenced(map, at, c.data(), what);
    int t = thread_rank, group = store_groups.open[t];
    store_groups.in_flight[t][group]++;
    issue_async([=] {
        check_box_fenced(map, at, c.data(), "tma_store (landing)");
        uint8_t* smem = shared.base();
        each_box_element(map, at, c.data(), [&](uint32_t from, uint8_t* to) {
            if (to) std::memcpy(to, smem + from, map.elem_bytes);
        });
        if (--store_groups.in_flight[t][group] == 0) store_groups.in_flight[t].erase(group);
    });
}

inline void tma_store_wait_all(const char* what) {
    int t = thread_rank;
    auto& mine = store_groups.in_flight[t];
    int committed = store_groups.open[t];
    sync_now->wait_until(
        t, [&] { return mine.empty() || mine.begin()->first >= committed; },
        [&] { return format("%s (stores of %zu groups in flight)", what, mine.size()); });
}

}  // namespace kvshim

inline void tma_load_2d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1) {
    int c[] = {c0, c1};
    kvshim::tma_load(smem_dst, map, bar, 2, c);
}
inline void tma_load_3d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2) {
    int c[] = {c0, c1, c2};
    kvshim::tma_load(smem_dst, map, bar, 3, c);
}
inline void tma_load_4d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2, int c3) {
    int c[] = {c0, c1, c2, c3};
    kvshim::tma_load(smem_dst, map, bar, 4, c);
}
inline void tma_store_2d(const CUtensorMap* map, const void* smem_src, int c0, int c1) {
    int c[] = {c0, c1};
    kvshim::tma_store(map, smem_src, 2, c);
}
inline void tma_store_3d(const CUtensorMap* map, const void* smem_src, int c0, int c1, int c2) {
    int c[] = {c0, c1, c2};
    kvshim::tma_store(map, smem_src, 3, c);
}
inline void tma_store_4d(const CUtensorMap* map, const void* smem_src, int c0, int c1, int c2, int c3) {
    int c[] = {c0, c1, c2, c3};
    kvshim::tma_store(map, smem_src, 4, c);
}
inline void tma_store_commit() {
    std::lock_guard lock(kvshim::async_lock);
    kvshim::store_groups.open[kvshim::thread_rank]++;
}
inline void tma_store_wait() { kvshim::tma_store_wait_all("tma_store_wait"); }
inline void tma_store_flush() { kvshim::tma_store_wait_all("tma_store_flush"); }

inline void fence_proxy_async() {
    std::lock_guard lock(kvshim::async_lock);
    std::memcpy(kvshim::shared.view.data(), kvshim::shared.base(), kvshim::shared.bytes());
    kvshim::changed();
}
