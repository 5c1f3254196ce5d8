/* kernel_name.c: see kernel_name.h.
 *
 * Demangling uses the C++ runtime's __cxa_demangle (the Itanium C++ ABI's demangler, in libstdc++
 * and libc++abi alike: https://itanium-cxx-abi.github.io/cxx-abi/abi.html#demangler): a full
 * demangler is the only way to print template arguments, lambdas and substitutions right. The
 * short name then reads the demangled signature, so mangled and demangled spellings of one kernel
 * get the same short name. The family rules read the spellings the libraries use; the real names
 * they were written from are in tests/common/test_kernel_name.c. */
#include "kernel_name.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_kernel_name.h"

/* The Itanium C++ ABI's demangler, provided by the C++ runtime. */
extern char *__cxa_demangle(const char *mangled_name, char *output_buffer, size_t *length, int *status);

/* Longer names are not demangled: the demangler's work grows with the name, and no real kernel
 * name comes near (the longest in tests/data, a PyTorch reduction, is under 2 KiB). */
enum { DEMANGLE_MAX_INPUT = 16384 };

int kernel_name_is_communication(const char *name)
{
    struct nccl_kernel_info info;
    return nccl_kernel_name_parse(name, &info);
}

char *kernel_name_demangle(const char *name)
{
    if (!name || !name[0])
        return strdup("?");
    if (strncmp(name, "_Z", 2) == 0 && strnlen(name, DEMANGLE_MAX_INPUT) < DEMANGLE_MAX_INPUT) {
        int status = -1;
        char *demangled = __cxa_demangle(name, NULL, NULL, &status);
        if (status == 0 && demangled)
            return demangled;
        free(demangled);
    }
    return strdup(name);
}

/* Reads one <source-name> (<decimal length><identifier>) at *cursor. */
static int read_source_name(const char **cursor, const char **identifier, size_t *length)
{
    const char *p = *cursor;
    size_t count = 0;
    while (isdigit((unsigned char)*p) && count <= 4096)
        count = count * 10 + (size_t)(*p++ - '0');
    if (p == *cursor || count == 0 || count > 4096 || strnlen(p, count) < count)
        return 0;
    *identifier = p;
    *length = count;
    *cursor = p + count;
    return 1;
}

/* Appends the source names at *cursor joined by "::", skipping the nested-name and substitution
 * markers between them (N, S_, S0_, L); returns how many were read. */
static size_t read_qualified(const char **cursor, char *out, size_t size, size_t *used)
{
    size_t count = 0;
    const char *p = *cursor;
    for (;;) {
        while (*p == 'N' || *p == 'L' || *p == 'K')
            p++;
        if (p[0] == 'S' && (p[1] == '_' || (isalnum((unsigned char)p[1]) && p[2] == '_'))) {
            p += p[1] == '_' ? 2 : 3;
            continue;
        }
        const char *identifier;
        size_t length;
        if (!read_source_name(&p, &identifier, &length))
            break;
        int written =
            snprintf(out + *used, size - *used, "%s%.*s", count ? "::" : "", (int)length, identifier);
        if (written < 0 || (size_t)written >= size - *used)
            break;
        *used += (size_t)written;
        count++;
    }
    *cursor = p;
    return count;
}

/* When the demangler refuses a name (profilers truncate long ones), what its start says:
 * "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemm..." ->
 * "cutlass_cudnn_train::Kernel<conv::kernel::ImplicitGemm>". NULL when it says nothing. */
static char *mangled_prefix(const char *name)
{
    size_t size = strlen(name) + 8, used = 0;
    char *out = malloc(size);
    if (!out)
        return NULL;
    out[0] = '\0';
    const char *p = name + 2;
    if (!read_qualified(&p, out, size, &used)) {
        free(out);
        return NULL;
    }
    if (*p == 'I') {
        p++;
        size_t before = used;
        snprintf(out + used, size - used, "<");
        used++;
        if (read_qualified(&p, out, size, &used))
            snprintf(out + used, size - used, ">");
        else
            out[before] = '\0';
    }
    return out;
}

/* --- reading a signature --- */

struct span {
    const char *text;
    size_t length;
};

/* What the short name needs from "void ns::inner::function<targs>(params)". */
struct signature {
    struct span function;      /* "function" (empty when none was found) */
    struct span first_scope;   /* "ns" ("(anonymous namespace)" skipped); empty at global scope */
    struct span parent;        /* "inner": the scope the function is declared in */
    struct span template_args; /* "targs" without the brackets; empty when none */
    struct span whole;         /* the whole demangled text */
};

static int is_name_character(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

static int span_starts(struct span s, const char *prefix)
{
    size_t length = strlen(prefix);
    return s.length >= length && strncmp(s.text, prefix, length) == 0;
}

static int span_equals(struct span s, const char *word)
{
    return s.length == strlen(word) && strncmp(s.text, word, s.length) == 0;
}

/* Finds needle in the first length bytes of haystack. */
static const char *find_in(const char *haystack, size_t length, const char *needle)
{
    size_t needle_length = strlen(needle);
    for (size_t i = 0; needle_length <= length && i <= length - needle_length; i++)
        if (strncmp(haystack + i, needle, needle_length) == 0)
            return haystack + i;
    return NULL;
}

/* The end of the bracketed group opening at text[start] ('<', '(' , '{' or '['): the index just
 * past its closing bracket, or length when unclosed. "operator<" style names do not occur in
 * kernel names' scopes. */
static size_t skip_group(const char *text, size_t start, size_t length)
{
    int depth = 0;
    for (size_t i = start; i < length; i++) {
        char c = text[i];
        if (c == '<' || c == '(' || c == '{' || c == '[')
            depth++;
        else if (c == '>' || c == ')' || c == '}' || c == ']')
            if (--depth == 0)
                return i + 1;
    }
    return length;
}

/* Reads the qualified function name at bracket depth 0: identifiers joined by "::", the return
 * type before a space dropped, "(anonymous namespace)" and "{lambda...}" components skipped. */
static void read_signature(const char *text, struct signature *out)
{
    static const char anonymous[] = "(anonymous namespace)";
    size_t length = strlen(text);
    memset(out, 0, sizeof *out);
    out->whole = (struct span){text, length};
    struct span scope = {0}, parent = {0}, last = {0}, targs = {0};
    for (size_t i = 0; i < length;) {
        char c = text[i];
        if (strncmp(text + i, anonymous, sizeof anonymous - 1) == 0) {
            i += sizeof anonymous - 1;
        } else if (is_name_character(c)) {
            size_t start = i;
            while (i < length && is_name_character(text[i]))
                i++;
            last = (struct span){text + start, i - start};
            targs = (struct span){0};
            if (i < length && text[i] == '<') {
                size_t end = skip_group(text, i, length);
                targs = (struct span){text + i + 1, end > i + 1 ? end - i - 2 : 0};
                i = end;
            }
            if (strncmp(text + i, "::", 2) == 0) {
                parent = last;
                if (!scope.text)
                    scope = last;
            }
        } else if (c == ':') {
            i++;
        } else if (c == ' ') {
            /* "void f": what came before was the return type. */
            scope = parent = (struct span){0};
            i++;
        } else if (c == '(') {
            if (last.text)
                break; /* the parameter list */
            i = skip_group(text, i, length);
        } else if (c == '{' || c == '[' || c == '<') {
            i = skip_group(text, i, length);
        } else {
            i++;
        }
    }
    if (scope.text == last.text)
        scope = parent = (struct span){0};
    out->parent = parent;
    out->function = last;
    out->first_scope = scope;
    out->template_args = targs;
}

/* --- writing --- */

struct writer {
    char *buffer;
    size_t size, used;
};

static void put(struct writer *w, const char *text, size_t length)
{
    if (w->used + 1 >= w->size)
        return;
    if (length > w->size - 1 - w->used)
        length = w->size - 1 - w->used;
    memcpy(w->buffer + w->used, text, length);
    w->used += length;
    w->buffer[w->used] = '\0';
}

static void put_text(struct writer *w, const char *text)
{
    put(w, text, strlen(text));
}

/* Appends a word with a space before it unless it is the first. */
static void put_word(struct writer *w, const char *text, size_t length)
{
    if (length == 0)
        return;
    if (w->used)
        put(w, " ", 1);
    put(w, text, length);
}

/* --- '_'-separated tokens of a library kernel's name --- */

enum { MAX_TOKENS = 48 };

struct tokens {
    struct span token[MAX_TOKENS];
    size_t count;
};

static void split_underscores(struct span name, struct tokens *out)
{
    out->count = 0;
    size_t i = 0;
    while (i < name.length && out->count < MAX_TOKENS) {
        size_t start = i;
        while (i < name.length && name.text[i] != '_')
            i++;
        if (i > start)
            out->token[out->count++] = (struct span){name.text + start, i - start};
        i++;
    }
}

/* "256x128" from "256x128", "tilesize256x128x8" or "64x4": the first two dimensions. */
static int tile_shape(struct span token, const char *prefix, struct span *shape)
{
    size_t skip = strlen(prefix);
    if (!span_starts(token, prefix))
        return 0;
    const char *p = token.text + skip, *end = token.text + token.length;
    const char *start = p;
    while (p < end && isdigit((unsigned char)*p))
        p++;
    if (p == start || p >= end || *p != 'x')
        return 0;
    p++;
    const char *second = p;
    while (p < end && isdigit((unsigned char)*p))
        p++;
    if (p == second)
        return 0;
    *shape = (struct span){start, (size_t)(p - start)};
    return 1;
}

/* Appends the first tile shape among tokens from..count ("MT64x16x32" with prefix "MT" -> "64x16"). */
static void put_first_shape(struct writer *w, const struct tokens *t, size_t from, const char *prefix)
{
    struct span shape;
    for (size_t i = from; i < t->count; i++)
        if (tile_shape(t->token[i], prefix, &shape)) {
            put_word(w, shape.text, shape.length);
            return;
        }
}

static int is_arch_token(struct span token)
{
    static const char *const archs[] = {"maxwell", "pascal", "volta",  "turing",
                                        "ampere",  "ada",    "hopper", "blackwell"};
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (span_equals(token, archs[i]))
            return 1;
    if (token.length > 2 && token.text[0] == 's' && token.text[1] == 'm') {
        for (size_t i = 2; i < token.length; i++)
            if (!isdigit((unsigned char)token.text[i]) && !(i == token.length - 1 && token.text[i] == 'a'))
                return 0;
        return 1;
    }
    return 0;
}

/* The element type an xmma kernel's operand spelling starts with ("f32f32" -> "f32"). */
static const char *xmma_type(struct span token)
{
    static const char *const types[] = {"bf16", "tf32", "f32", "f16", "f64", "e4m3",
                                        "e5m2", "fp8",  "i8",  "s8",  "i32"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (span_starts(token, types[i]))
            return types[i];
    return NULL;
}

/* BLAS's one-letter precision prefixes: sgemm, dgemm, hgemm. */
static const char *blas_gemm(const char *type)
{
    if (strcmp(type, "f32") == 0)
        return "sgemm";
    if (strcmp(type, "f64") == 0)
        return "dgemm";
    if (strcmp(type, "f16") == 0)
        return "hgemm";
    return NULL;
}

static const char *library_of_suffix(const struct tokens *t)
{
    for (size_t i = t->count; i-- > 0;) {
        if (find_in(t->token[i].text, t->token[i].length, "cublas"))
            return "cuBLAS";
        if (find_in(t->token[i].text, t->token[i].length, "cudnn"))
            return "cuDNN";
    }
    return NULL;
}

/* sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_..._cublas:
 * "cuBLAS sgemm 256x128 (ffma)"; ..._fprop_implicit_gemm_tf32f32_..._tensor16x8x8_..._cudnn:
 * "cuDNN fprop implicit gemm tf32 128x64 (tensor op)". */
static int xmma_family(struct span function, struct writer *w)
{
    struct tokens t;
    split_underscores(function, &t);
    if (t.count < 3 || !is_arch_token(t.token[0]) || !span_equals(t.token[1], "xmma"))
        return 0;
    const char *library = library_of_suffix(&t);
    put_text(w, library ? library : "xmma");
    size_t i = 2, op_start = 2;
    while (i < t.count && !xmma_type(t.token[i]))
        i++;
    const char *type = i < t.count ? xmma_type(t.token[i]) : NULL;
    int plain_gemm = i == op_start + 1 && span_equals(t.token[op_start], "gemm");
    if (plain_gemm && type && blas_gemm(type)) {
        put_word(w, blas_gemm(type), strlen(blas_gemm(type)));
    } else if (plain_gemm && type) {
        put_word(w, type, strlen(type));
        put_word(w, "gemm", 4);
    } else {
        for (size_t k = op_start; k < i; k++)
            put_word(w, t.token[k].text, t.token[k].length);
        if (type)
            put_word(w, type, strlen(type));
    }
    const char *math = NULL;
    for (; i < t.count; i++) {
        struct span shape;
        if (tile_shape(t.token[i], "tilesize", &shape))
            put_word(w, shape.text, shape.length);
        else if (span_equals(t.token[i], "ffma"))
            math = "(ffma)";
        else if (span_starts(t.token[i], "tensor") || span_starts(t.token[i], "warpgroupsize"))
            math = "(tensor op)";
    }
    if (math)
        put_word(w, math, strlen(math));
    return 1;
}

/* ampere_sgemm_128x64_nn -> "cuBLAS sgemm 128x64"; cudnn_infer_ampere_scudnn_128x64_relu_... ->
 * "cuDNN scudnn 128x64": cuBLAS's and cuDNN's pre-xmma naming, <arch>_<op>_<tile>_<layout>. */
static int arch_family(struct span function, struct writer *w)
{
    struct tokens t;
    split_underscores(function, &t);
    size_t i = 0;
    int cudnn = 0;
    while (i < t.count && (span_equals(t.token[i], "cudnn") || span_equals(t.token[i], "infer") ||
                           span_equals(t.token[i], "train"))) {
        cudnn = 1;
        i++;
    }
    if (i + 2 >= t.count || !is_arch_token(t.token[i]) || span_equals(t.token[i + 1], "xmma"))
        return 0;
    size_t op_start = ++i;
    struct span shape = {0};
    while (i < t.count && !tile_shape(t.token[i], "", &shape))
        i++;
    if (i == t.count || i == op_start)
        return 0;
    for (size_t k = op_start; k < i; k++)
        if (find_in(t.token[k].text, t.token[k].length, "cudnn"))
            cudnn = 1;
    put_text(w, cudnn ? "cuDNN" : "cuBLAS");
    for (size_t k = op_start; k < i; k++)
        put_word(w, t.token[k].text, t.token[k].length);
    put_word(w, shape.text, shape.length);
    return 1;
}

/* nvjet_tst_192x192_64x4_1x2_h_bz_coopB_NTN: cuBLAS's Hopper/Blackwell GEMMs -> "cuBLAS nvjet tst
 * 192x192". */
static int nvjet_family(struct span function, struct writer *w)
{
    struct tokens t;
    split_underscores(function, &t);
    if (t.count < 2 || !span_equals(t.token[0], "nvjet"))
        return 0;
    put_text(w, "cuBLAS nvjet");
    struct span shape;
    for (size_t i = 1; i < t.count; i++) {
        if (tile_shape(t.token[i], "", &shape)) {
            put_word(w, shape.text, shape.length);
            break;
        }
        put_word(w, t.token[i].text, t.token[i].length);
    }
    return 1;
}

/* A CUTLASS configuration name (cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4,
 * cutlass_80_simt_sgemm_256x128_8x4_nn_align1, cutlass_tensorop_s1688fprop_optimized_tf32_...)
 * anywhere in the text -> "CUTLASS sgemm 256x64 (tensor op)". */
static int cutlass_configuration(struct span whole, struct writer *w)
{
    static const char *const kinds[][2] = {{"tensorop", "tensor op"}, {"simt", "simt"}, {"wmma", "wmma"}};
    for (const char *at = find_in(whole.text, whole.length, "cutlass_"); at;
         at = find_in(at + 1, whole.length - (size_t)(at + 1 - whole.text), "cutlass_")) {
        if (at > whole.text && is_name_character(at[-1]))
            continue;
        size_t length = 0;
        while (is_name_character(at[length]))
            length++;
        struct tokens t;
        split_underscores((struct span){at, length}, &t);
        size_t i = 1;
        while (i < t.count && isdigit((unsigned char)t.token[i].text[0]))
            i++;
        const char *kind = NULL;
        for (; i < t.count && !kind; i++)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                if (span_equals(t.token[i], kinds[k][0]))
                    kind = kinds[k][1];
        if (!kind)
            continue;
        put_text(w, "CUTLASS");
        struct span shape = {0};
        for (; i < t.count && !tile_shape(t.token[i], "", &shape); i++) {
            /* s1688gemm: accumulate type, instruction shape, operation */
            struct span op = t.token[i];
            size_t letters = 0;
            while (letters < op.length && isalpha((unsigned char)op.text[letters]))
                letters++;
            size_t digits = letters;
            while (digits < op.length && isdigit((unsigned char)op.text[digits]))
                digits++;
            if (digits > letters && digits < op.length) {
                int gemm = span_equals((struct span){op.text + digits, op.length - digits}, "gemm");
                if (gemm && letters == 1) {
                    put_word(w, op.text, 1);
                    put(w, "gemm", 4);
                } else {
                    put_word(w, op.text + digits, op.length - digits);
                }
            } else if (span_equals(op, "sgemm") || span_equals(op, "dgemm") || span_equals(op, "hgemm") ||
                       span_equals(op, "gemm") || span_equals(op, "fprop") || span_equals(op, "dgrad") ||
                       span_equals(op, "wgrad")) {
                put_word(w, op.text, op.length);
            }
        }
        if (shape.text)
            put_word(w, shape.text, shape.length);
        put(w, " (", 2);
        put_text(w, kind);
        put(w, ")", 1);
        return 1;
    }
    return 0;
}

/* The last identifier of the first template argument's qualified name:
 * "cutlass::conv::kernel::ImplicitGemmConvolution<...>, ..." -> "ImplicitGemmConvolution". */
static struct span first_template_argument_name(struct span targs)
{
    struct span last = {0};
    for (size_t i = 0; i < targs.length;) {
        char c = targs.text[i];
        if (is_name_character(c)) {
            size_t start = i;
            while (i < targs.length && is_name_character(targs.text[i]))
                i++;
            last = (struct span){targs.text + start, i - start};
        } else if (c == ':' || c == ' ') {
            i++;
        } else {
            break;
        }
    }
    return last;
}

/* flash_fwd_kernel<Flash_fwd_kernel_traits<128, ...>> -> "FlashAttention fwd hdim 128";
 * FlashAttention 3 (flash::FlashAttnFwdSm90 inside cutlass::device_kernel) -> "FlashAttention 3
 * fwd"; PyTorch's memory-efficient attention (fmha_cutlassF_f32_aligned_64x64_rf_sm80) ->
 * "mem-efficient attention fwd 64x64". */
static int attention_family(const struct signature *s, struct writer *w)
{
    struct span f = s->function;
    if (span_starts(f, "flash_fwd") || span_starts(f, "flash_bwd")) {
        put_text(w, "FlashAttention");
        struct tokens t;
        split_underscores((struct span){f.text + 6, f.length - 6}, &t);
        for (size_t i = 0; i < t.count; i++)
            if (!span_equals(t.token[i], "kernel"))
                put_word(w, t.token[i].text, t.token[i].length);
        const char *traits = find_in(s->whole.text, s->whole.length, "_kernel_traits<");
        if (traits && isdigit((unsigned char)traits[15])) {
            size_t digits = strspn(traits + 15, "0123456789");
            put_word(w, "hdim", 4);
            put_word(w, traits + 15, digits);
        }
        return 1;
    }
    if (find_in(s->whole.text, s->whole.length, "flash::FlashAttnFwd")) {
        put_text(w, "FlashAttention 3 fwd");
        return 1;
    }
    if (find_in(s->whole.text, s->whole.length, "flash::FlashAttnBwd")) {
        put_text(w, "FlashAttention 3 bwd");
        return 1;
    }
    if (span_starts(f, "fmha_cutlassF") || span_starts(f, "fmha_cutlassB")) {
        put_text(w, f.text[12] == 'F' ? "mem-efficient attention fwd" : "mem-efficient attention bwd");
        struct tokens t;
        split_underscores(f, &t);
        put_first_shape(w, &t, 0, "");
        return 1;
    }
    return 0;
}

/* triton_poi_fused_add_mul_0 -> "Triton pointwise add_mul" (TorchInductor's kernel names:
 * torch/_inductor/codegen: poi pointwise, red reduction, per persistent reduction, tem template,
 * for foreach, sca scan). */
static int triton_family(struct span f, struct writer *w)
{
    static const char *const kinds[][2] = {
        {"poi", "pointwise"}, {"red", "reduction"}, {"per", "persistent reduction"},
        {"tem", "template"},  {"for", "foreach"},   {"sca", "scan"}};
    if (!span_starts(f, "triton_"))
        return 0;
    struct span rest = {f.text + 7, f.length - 7};
    put_text(w, "Triton");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (span_starts(rest, kinds[k][0]) && rest.length > 3 && rest.text[3] == '_') {
            put_word(w, kinds[k][1], strlen(kinds[k][1]));
            rest.text += 4;
            rest.length -= 4;
            break;
        }
    if (span_starts(rest, "fused_")) {
        rest.text += 6;
        rest.length -= 6;
    }
    /* the trailing _<n> numbers kernels of the same shape */
    size_t end = rest.length;
    while (end > 0 && isdigit((unsigned char)rest.text[end - 1]))
        end--;
    if (end > 0 && end < rest.length && rest.text[end - 1] == '_')
        rest.length = end - 1;
    put_word(w, rest.text, rest.length);
    return 1;
}

/* Cijk_Alik_Bljk_SB_Bias_..._MT64x16x32_...: rocBLAS/hipBLASLt's Tensile GEMMs (C = A B with
 * index orders, then the data type code and the macro tile) -> "Tensile gemm SB 64x16". */
static int tensile_family(struct span f, struct writer *w)
{
    struct tokens t;
    split_underscores(f, &t);
    if (t.count < 4 || !span_equals(t.token[0], "Cijk"))
        return 0;
    put_text(w, "Tensile gemm");
    put_word(w, t.token[3].text, t.token[3].length);
    put_first_shape(w, &t, 4, "MT");
    return 1;
}

/* "NCCL AllReduce Sum f32 RING LL": every field the name carries. */
static int nccl_family(const char *name, struct span f, struct writer *w)
{
    struct nccl_kernel_info info;
    if (!nccl_kernel_name_parse(name, &info))
        return 0;
    put_text(w, "NCCL");
    if (strcmp(info.op, "Unknown") == 0) {
        /* ncclDevKernel_Generic: the name does not say; keep what follows the prefix */
        const char *underscore = memchr(f.text, '_', f.length);
        if (underscore)
            put_word(w, underscore + 1, f.length - (size_t)(underscore + 1 - f.text));
        return 1;
    }
    const char *fields[] = {info.op, info.reduction, info.dtype, info.algorithm, info.protocol};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i])
            put_word(w, fields[i], strlen(fields[i]));
    return 1;
}

/* Kernels of cuDNN, cuBLAS and CUTLASS recognised by their namespace or their parameter types
 * (cublasGemvParams, cudnnTensorStruct, ...): the library's name before the function's. */
static const char *library_of_scope(const struct signature *s)
{
    struct span scope = s->first_scope;
    if (span_starts(scope, "cublasLt"))
        return "cuBLASLt";
    if (span_starts(scope, "cublas"))
        return "cuBLAS";
    if (span_starts(scope, "cudnn") || span_starts(scope, "cask_cudnn") || span_starts(s->function, "cudnn"))
        return "cuDNN";
    if (span_starts(scope, "cutlass"))
        return "CUTLASS";
    if (find_in(s->whole.text, s->whole.length, "cublasLt"))
        return "cuBLASLt";
    if (find_in(s->whole.text, s->whole.length, "cublas"))
        return "cuBLAS";
    if (find_in(s->whole.text, s->whole.length, "cudnn"))
        return "cuDNN";
    return NULL;
}

static void short_from_signature(const char *name, const struct signature *s, struct writer *w)
{
    struct span f = s->function;
    if (!f.text) {
        put(w, s->whole.text, s->whole.length);
        return;
    }
    if (nccl_family(name, f, w) || xmma_family(f, w) || arch_family(f, w) || nvjet_family(f, w) ||
        tensile_family(f, w) || attention_family(s, w) || triton_family(f, w) ||
        cutlass_configuration(s->whole, w))
        return;
    const char *library = library_of_scope(s);
    /* cutlass::Kernel<Configuration>: the configuration says what runs, "Kernel" does not */
    if (library && strcmp(library, "CUTLASS") == 0 &&
        (span_equals(f, "Kernel") || span_equals(f, "Kernel2") || span_equals(f, "device_kernel"))) {
        struct span inner = first_template_argument_name(s->template_args);
        if (inner.text)
            f = inner;
    }
    if (library) {
        put_text(w, library);
        put(w, " ", 1);
    }
    /* "kernel" alone names nothing: internal::gemvx::kernel -> "gemvx::kernel" */
    if ((span_equals(f, "kernel") || span_equals(f, "Kernel")) && s->parent.text) {
        put(w, s->parent.text, s->parent.length);
        put(w, "::", 2);
    }
    put(w, f.text, f.length);
}

char *kernel_name_short(const char *name, char *buffer, size_t size)
{
    if (size == 0)
        return buffer;
    buffer[0] = '\0';
    struct writer w = {buffer, size, 0};
    if (!name || !name[0]) {
        put_text(&w, "?");
        return buffer;
    }
    char *demangled = kernel_name_demangle(name);
    if (demangled && strncmp(demangled, "_Z", 2) == 0) {
        char *prefix = mangled_prefix(demangled);
        if (prefix) {
            free(demangled);
            demangled = prefix;
        }
    }
    if (!demangled) {
        put_text(&w, name);
        return buffer;
    }
    struct signature s;
    read_signature(demangled, &s);
    short_from_signature(demangled, &s, &w);
    free(demangled);
    if (!buffer[0])
        put_text(&w, "?");
    return buffer;
}
