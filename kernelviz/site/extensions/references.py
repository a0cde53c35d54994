"""Sources: a page cites a paper or post as a link to ``ref:KEY``, ``[FlashAttention-2](ref:fa2)``; the link goes to
the page's References section, which lists every source the page cites, in the order first cited:

    FlashAttention-2<sup>[1]</sup>  ->  <section class="kv-references"><h2 id="references">References</h2>
                                        <ol><li id="ref-fa2">Tri Dao. <a href="https://…">FlashAttention-2: …</a>.
                                        ICLR 2024.</li></ol></section>

SOURCES is the one list of what the pages rest on (each URL is checked for form by the build's link check; nothing
is fetched). A key not in it is a warning at the line that cites it. The section is a ``##`` heading, so the page's
table of sections lists it (this extension resolves before ``toc``).
"""

from dataclasses import dataclass

from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

PREFIX = "ref:"
SECTION = "references"


@dataclass(frozen=True)
class Source:
    authors: str
    title: str
    venue: str
    url: str


SOURCES = {
    "attention": Source(
        "Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, Aidan N. Gomez, Łukasz Kaiser, "
        "Illia Polosukhin",
        "Attention Is All You Need",
        "NeurIPS 2017",
        "https://arxiv.org/abs/1706.03762",
    ),
    "online-softmax": Source(
        "Maxim Milakov, Natalia Gimelshein",
        "Online normalizer calculation for softmax",
        "arXiv:1805.02867, 2018",
        "https://arxiv.org/abs/1805.02867",
    ),
    "memory-efficient": Source(
        "Markus N. Rabe, Charles Staats",
        "Self-attention Does Not Need O(n²) Memory",
        "arXiv:2112.05682, 2021",
        "https://arxiv.org/abs/2112.05682",
    ),
    "fa1": Source(
        "Tri Dao, Daniel Y. Fu, Stefano Ermon, Atri Rudra, Christopher Ré",
        "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
        "NeurIPS 2022",
        "https://arxiv.org/abs/2205.14135",
    ),
    "fa2": Source(
        "Tri Dao",
        "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning",
        "ICLR 2024",
        "https://arxiv.org/abs/2307.08691",
    ),
    "flash-decoding": Source(
        "Tri Dao, Daniel Haziza, Francisco Massa, Grigory Sizov",
        "Flash-Decoding for long-context inference",
        "Stanford CRFM blog, October 2023",
        "https://crfm.stanford.edu/2023/10/12/flashdecoding.html",
    ),
    "triton-attention": Source(
        "Philippe Tillet and the Triton authors",
        "Fused Attention (Triton tutorial 06): forward and backward, with Delta = rowsum(dO * O)",
        "Triton documentation",
        "https://triton-lang.org/main/getting-started/tutorials/06-fused-attention.html",
    ),
    "flash-attn": Source(
        "Tri Dao and contributors",
        "flash-attention: the FlashAttention kernels (flash_bwd_kernel: dq_accum with atomic adds)",
        "GitHub, Dao-AILab",
        "https://github.com/Dao-AILab/flash-attention",
    ),
    "fa-scheduler": Source(
        "Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao",
        "flash-attention, hopper/tile_scheduler.hpp: DynamicPersistentTileScheduler, longest-processing-time-first "
        "for causal attention",
        "GitHub, Dao-AILab",
        "https://github.com/Dao-AILab/flash-attention/blob/main/hopper/tile_scheduler.hpp",
    ),
    "fa-causal": Source(
        "Tri Dao and contributors",
        "flash-attention README, changelog: 2.1: Change behavior of causal flag (the mask aligned to the bottom-right "
        "corner when seqlen_q != seqlen_k; a row of the mask that is all zero gives output zero)",
        "GitHub, Dao-AILab",
        "https://github.com/Dao-AILab/flash-attention#21-change-behavior-of-causal-flag",
    ),
    "fa-fwd-kernel": Source(
        "Tri Dao and contributors",
        "flash-attention, csrc/flash_attn/src/flash_fwd_kernel.h: compute_attn_1rowblock exits early, writing O = 0 "
        "and LSE = +inf, for a block with no key block to visit",
        "GitHub, Dao-AILab",
        "https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/src/flash_fwd_kernel.h",
    ),
    "torch-sdpa": Source(
        "PyTorch contributors",
        "torch.nn.functional.scaled_dot_product_attention (is_causal=True: the mask ones(L, S).tril(diagonal=0), "
        "aligned to the top left)",
        "PyTorch documentation",
        "https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html",
    ),
    "torch-causal-variant": Source(
        "PyTorch contributors",
        "torch.nn.attention.bias.CausalVariant: UPPER_LEFT (is_causal=True) and LOWER_RIGHT (causal_lower_right)",
        "PyTorch documentation",
        "https://pytorch.org/docs/stable/generated/torch.nn.attention.bias.CausalVariant.html",
    ),
    "ptx-isa": Source(
        "NVIDIA",
        "Parallel Thread Execution ISA: warp-level matrix instructions (mma.m16n8k16 fragment layouts, ldmatrix)",
        "CUDA Toolkit documentation",
        "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#warp-level-matrix-instructions",
    ),
    "paged-attention": Source(
        "Woosuk Kwon, Zhuohan Li, Siyuan Zhuang, Ying Sheng, Lianmin Zheng, Cody Hao Yu, Joseph E. Gonzalez, "
        "Hao Zhang, Ion Stoica",
        "Efficient Memory Management for Large Language Model Serving with PagedAttention",
        "SOSP 2023",
        "https://arxiv.org/abs/2309.06180",
    ),
    "gqa": Source(
        "Joshua Ainslie, James Lee-Thorp, Michiel de Jong, Yury Zemlyanskiy, Federico Lebrón, Sumit Sanghai",
        "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints",
        "EMNLP 2023",
        "https://arxiv.org/abs/2305.13245",
    ),
    "mqa": Source(
        "Noam Shazeer",
        "Fast Transformer Decoding: One Write-Head is All You Need",
        "arXiv:1911.02150, 2019",
        "https://arxiv.org/abs/1911.02150",
    ),
    "flashinfer": Source(
        "Zihao Ye, Lequn Chen, Ruihang Lai, Wuwei Lin, Yineng Zhang, Stephanie Wang, Tianqi Chen, Baris Kasikci, "
        "Vinod Grover, Arvind Krishnamurthy, Luis Ceze",
        "FlashInfer: Efficient and Customizable Attention Engine for LLM Inference Serving",
        "MLSys 2025",
        "https://arxiv.org/abs/2501.01005",
    ),
    "flashinfer-merge": Source(
        "FlashInfer team",
        "flashinfer, include/flashinfer/attention/cascade.cuh: MergeStateKernel (merge_state), the merge of two "
        "attention states (v, s) for cascade attention; s is a log-sum-exp in base 2",
        "GitHub, flashinfer-ai",
        "https://github.com/flashinfer-ai/flashinfer/blob/main/include/flashinfer/attention/cascade.cuh",
    ),
    "flashinfer-decode": Source(
        "FlashInfer team",
        "flashinfer, include/flashinfer/attention/decode.cuh: one thread block per K/V head and chunk, its query heads "
        "along threadIdx.y (qo_head_idx = kv_head_idx * bdy + threadIdx.y)",
        "GitHub, flashinfer-ai",
        "https://github.com/flashinfer-ai/flashinfer/blob/main/include/flashinfer/attention/decode.cuh",
    ),
    "flash-attn-combine": Source(
        "Tri Dao and contributors",
        "flash-attention, csrc/flash_attn/src/flash_fwd_kernel.h: the split-KV kernel writes each split's normalized "
        "output and log-sum-exp (normalize_softmax_lse), combine_attn_seqk_parallel merges them",
        "GitHub, Dao-AILab",
        "https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/src/flash_fwd_kernel.h",
    ),
    "vllm-merge": Source(
        "vLLM team",
        "vllm, csrc/attention/merge_attn_states.cu: merge_attn_states, the merge of a prefix's and a suffix's "
        "attention outputs by their log-sum-exps",
        "GitHub, vllm-project",
        "https://github.com/vllm-project/vllm/blob/main/csrc/attention/merge_attn_states.cu",
    ),
    "vllm-paged": Source(
        "vLLM team",
        "vllm, csrc/attention/attention_kernels.cuh: paged_attention_kernel (v1 and v2), one thread block per query "
        "head (head_idx = blockIdx.x; kv_head_idx = head_idx / num_queries_per_kv)",
        "GitHub, vllm-project, commit 5bc0e56",
        "https://github.com/vllm-project/vllm/blob/5bc0e56c7a30800631543dd1a447e4e44fbd5bba/csrc/attention/"
        "attention_kernels.cuh",
    ),
    "fa3": Source(
        "Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao",
        "FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision",
        "NeurIPS 2024",
        "https://arxiv.org/abs/2407.08608",
    ),
    "fa3-hopper": Source(
        "Jay Shah, Tri Dao and contributors",
        "flash-attention, hopper/: the FlashAttention-3 kernels (mainloop_fwd_sm90_tma_gmma_ws.hpp: producer and "
        "consumer warpgroups, the pipeline of K and V stages, named barriers between the consumers)",
        "GitHub, Dao-AILab",
        "https://github.com/Dao-AILab/flash-attention/tree/main/hopper",
    ),
    "ptx-wgmma": Source(
        "NVIDIA",
        "Parallel Thread Execution ISA: asynchronous warpgroup-level matrix instructions (wgmma.mma_async, "
        "wgmma.fence, commit_group, wait_group, matrix descriptors)",
        "CUDA Toolkit documentation",
        "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#asynchronous-warpgroup-level-matrix-instructions",
    ),
    "ptx-setmaxnreg": Source(
        "NVIDIA",
        "Parallel Thread Execution ISA: setmaxnreg (a warpgroup's registers a thread raised or lowered through the "
        "block's pool; a multiple of 8 from 24 to 256)",
        "CUDA Toolkit documentation",
        "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#miscellaneous-instructions-setmaxnreg",
    ),
    "ptx-tma": Source(
        "NVIDIA",
        "Parallel Thread Execution ISA: cp.async.bulk.tensor (tensor copies between global and shared memory through a "
        "tensor map, completed on an mbarrier)",
        "CUDA Toolkit documentation",
        "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async-bulk-tensor",
    ),
    "ptx-mbarrier": Source(
        "NVIDIA",
        "Parallel Thread Execution ISA: mbarrier (phases, arrival and transaction counts, expect_tx, try_wait.parity)",
        "CUDA Toolkit documentation",
        "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-mbarrier",
    ),
    "cuda-async-barrier": Source(
        "NVIDIA",
        "CUDA C++ Programming Guide: Asynchronous Barrier (cuda::barrier, arrive and wait, phases, transaction counts)",
        "NVIDIA documentation",
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#asynchronous-barrier",
    ),
    "cuda-tma": Source(
        "NVIDIA",
        "CUDA C++ Programming Guide: Asynchronous Data Copies using the Tensor Memory Accelerator (TMA): tensor maps "
        "made with cuTensorMapEncodeTiled, swizzle modes",
        "NVIDIA documentation",
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#tensor-memory-access",
    ),
    "llama3": Source(
        "Llama Team, AI @ Meta",
        "The Llama 3 Herd of Models",
        "arXiv:2407.21783, 2024",
        "https://arxiv.org/abs/2407.21783",
    ),
    "fermi": Source(
        "NVIDIA",
        "NVIDIA's Next Generation CUDA Compute Architecture: Fermi (whitepaper; the unified L2 cache serves loads, "
        "stores and atomic operations)",
        "NVIDIA, 2009",
        "https://www.nvidia.com/content/PDF/fermi_white_papers/NVIDIA_Fermi_Compute_Architecture_Whitepaper.pdf",
    ),
    "ptx-cp-async": Source(
        "NVIDIA",
        "Parallel Thread Execution ISA: cp.async, cp.async.commit_group and cp.async.wait_group",
        "CUDA Toolkit documentation",
        "https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#data-movement-and-conversion-instructions-cp-async",
    ),
    "cuda-async-copy": Source(
        "NVIDIA",
        "CUDA C++ Programming Guide: asynchronous data copies (memcpy_async, cp.async) and the arithmetic "
        "instructions' throughput per SM",
        "NVIDIA documentation",
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#asynchronous-data-copies",
    ),
    "cute-swizzle": Source(
        "NVIDIA CUTLASS contributors",
        "CuTe: Swizzle<BBits, MBase, SShift> (include/cute/swizzle.hpp)",
        "CUTLASS on GitHub",
        "https://github.com/NVIDIA/cutlass/blob/main/include/cute/swizzle.hpp",
    ),
    "cuda-guide": Source(
        "NVIDIA",
        "CUDA C++ Programming Guide: shared memory, synchronization and the memory hierarchy",
        "NVIDIA documentation",
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/",
    ),
}


def plugin(md):
    pass  # citations are CommonMark links; they are resolved in resolve


def resolve(page, context):
    """Point each ``ref:KEY`` link at its entry, number it, and append the References section to the page."""
    page.references = []
    for token in page.tokens:
        if token.children:
            token.children = _cite(token.children, token.map[0] + 1 if token.map else None, page, context)
    if page.references:
        page.tokens += section(page.references)


UNKNOWN = object()


def _cite(children, line, page, context):
    """`children` (an inline token's) with each citation link pointed at its entry and followed by its number; an
    unknown one warned about (at `line`, the block's, plus the line breaks before it) and made a span."""
    out, open_links = [], []
    for child in children:
        if child.type in ("softbreak", "hardbreak") and line is not None:
            line += 1
        if child.type == "link_open":
            href = child.attrGet("href")
            key = href[len(PREFIX) :] if isinstance(href, str) and href.startswith(PREFIX) else None
            if key is not None and key not in SOURCES:
                known = ", ".join(sorted(SOURCES))
                context.diagnostics.warn(page.file, line, f"unknown source {href!r}: cite one of {known}")
                child.tag, child.attrs, key = "span", {"class": "kv-cite-unknown"}, UNKNOWN
            elif key is not None:
                if key not in page.references:
                    page.references.append(key)
                child.attrSet("href", f"#ref-{key}")
                child.attrSet("class", "kv-cite")
            open_links.append(key)
        elif child.type == "link_close" and open_links:
            key = open_links.pop()
            if key is UNKNOWN:
                child.tag = "span"
            elif key is not None:
                mark = Token("html_inline", "", 0)
                mark.content = f"<sup>[{page.references.index(key) + 1}]</sup>"
                out.append(mark)
        out.append(child)
    return out


def section(keys):
    """The tokens of the References section: a ## heading and the numbered list of `keys`' sources."""
    heading_open = Token("heading_open", "h2", 1)
    heading_open.attrSet("id", SECTION)
    heading_open.markup = "##"
    title = Token("inline", "", 0)
    title.content = "References"
    title.children = [_text("References")]
    heading_close = Token("heading_close", "h2", -1)
    items = "".join(entry(key) for key in keys)
    listing = Token("html_block", "", 0)
    listing.content = f'<ol class="kv-references">\n{items}</ol>\n'
    return [heading_open, title, heading_close, listing]


def entry(key):
    """One source as a list item with the id citations link to."""
    s = SOURCES[key]
    return (
        f'<li id="ref-{escapeHtml(key)}">{escapeHtml(s.authors)}. '
        f'<a href="{escapeHtml(s.url)}">{escapeHtml(s.title)}</a>. {escapeHtml(s.venue)}.</li>\n'
    )


def _text(content):
    token = Token("text", "", 0)
    token.content = content
    return token
