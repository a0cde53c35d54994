"""kernelviz.cuda.scope: the declarations a line makes, the names code uses, and the lines a region needs around it."""

from kernelviz.cuda import regions, scope


def test_declarations_of_every_form_the_kernels_use():
    assert scope.declares("    int i = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;") == ["i", "bh", "tid"]
    assert scope.declares("__shared__ float Qi[Br][D], Oi[Br][D], Kj[Bc][D];") == ["Qi", "Oi", "Kj"]
    assert scope.declares("template <int Br, int Bc, int D>") == ["Br", "Bc", "D"]
    assert scope.declares("__global__ void f(const float* Q, float* O_partial,") == ["f", "Q", "O_partial"]
    assert scope.declares("    int N, float scale, int causal) {") == ["N", "scale", "causal"]
    assert scope.declares("for (int j = 0; n_start + j*Bc < n_end; j++) {  // int not_this") == ["j"]
    assert scope.declares("int n_start = s*S, n_end = min(n_start + S, N);") == ["n_start", "n_end"]
    assert scope.declares("bool masked = col0 + c >= N || (causal && col0 + c > row0 + r);") == ["masked"]
    assert scope.declares("Q += (long)bh*N*D; x = (int)y;") == []  # casts declare nothing


def test_the_tensor_core_kernels_forms_parameters_types_initializers_and_attributes():
    """fa2_mma.cu: references to arrays, 16-bit storage as unsigned short, braced initializers, attributes."""
    line = "__device__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned short* row) {"
    assert scope.declares(line) == ["mma", "d", "a", "row"]
    assert scope.declares("__global__ void __launch_bounds__(128) fa2_mma(const unsigned short* Q,") == ["fa2_mma", "Q"]
    assert scope.declares("__shared__ __align__(16) unsigned short Qi[Br][S], Kj[Bc][S];") == ["Qi", "Kj"]
    assert scope.declares("float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};") == ["m", "l"]
    assert scope.declares("unsigned q[D/16][4];") == ["q"]


def test_preprocessor_lines_and_names_of_other_namespaces_are_not_read():
    text = '#ifdef KVSHIM\n    kvshim::mma(d, a, BF16);\n#else\n    asm volatile("mma" : "+f"(d[0]));\n#endif'
    assert scope.uses(text) == ["d", "a", "BF16"]


def test_uses_leaves_out_keywords_builtins_members_and_comments():
    text = "for (int x = tid; x < Bc*D; x += blockDim.x) Kj[x] = expf(-INFINITY);  // not_a_name"
    assert scope.uses(text) == ["x", "tid", "Bc", "D", "Kj"]
    line = "__host__ __device__ inline long pool_offset(int page, int D) { return (long)page*D; }"  # paged_decoding.cu
    assert scope.declares(line) == ["pool_offset", "page", "D"]
    assert scope.uses(line) == ["pool_offset", "page", "D"]  # not __host__, a qualifier


def test_a_loop_body_region_gets_its_loop_the_function_and_the_declarations_it_needs():
    e = regions.excerpt("fa2.cu#load_kv")
    text = {n: e.source.line(n).text.strip() for n in e.numbers}
    shown = list(text.values())
    assert "for (int j = 0; j < Tc; j++) {" in shown and "int col0 = j*Bc;" in " ".join(shown)
    assert shown[0] == "template <int Br, int Bc, int D>" and shown[-1] == "}"
    assert any(s.startswith("__shared__ float Qi[Br][D]") for s in shown)  # Kj, Vj
    assert any(s.startswith("int i = blockIdx.x") for s in shown)  # tid
    assert not any("Sij[r][c] = masked" in s for s in shown)  # the other regions of the loop are left out
    assert set(range(e.first, e.last + 1)) <= set(e.numbers)


def test_a_loop_variable_is_not_visible_after_its_loop():
    src = scope.Source("int a;\nfor (int k = 0; k < 4; k++) a += k;\nfor (int r = 0; r < 2; r++) {\n  a = r;\n}\nk;\n")
    assert src.visible("k", 2) == 2 and src.visible("k", 6) is None
    assert src.visible("r", 4) == 3 and src.visible("r", 6) is None
    assert src.visible("a", 4) == 1
    assert src.closing(3) == 5


def test_an_include_of_a_header_beside_the_kernels_declares_its_functions():
    """fa2_pipe.cu's blocks call the PTX wrappers mma_sm80.h defines: its #include line is their declaration in view
    (their parameters are not); an include of a file that is not there, or of a system header, declares nothing."""
    assert scope.declares('#include "mma_sm80.h"  // the PTX') == [
        "mma_m16n8k16", "ldmatrix_x4", "pack2", "cp_async16", "cp_async_commit", "cp_async_wait",
    ]  # fmt: skip
    assert scope.declares('#include "swizzle.h"') == ["kv_swizzle"]
    assert scope.declares('#include "missing.h"') == scope.declares("#include <cstdint>") == []
    src = scope.Source('#include "mma_sm80.h"\nvoid f() {\n    pack2<1>(a, b);\n}\n')
    assert src.visible("pack2", 3) == 1 and 1 in src.context(3, 3)
