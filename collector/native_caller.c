/* native_caller.c: see native_caller.h. */
#include "native_caller.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NATIVE_FRAMES 64
#define MAX_PROGRAM_SYMBOLS (1 << 20)
#define MAX_SYMBOL_NAMES (16 << 20) /* bytes of .strtab read */

/* The program's own functions from its .symtab, read once by native_caller_prepare: dladdr names
 * only exported symbols, and an executable exports none of its functions unless linked with
 * -rdynamic, so without these every frame of the program would be "program+0xOFF". Written once
 * before any capture, read-only after. */
struct program_function {
    uintptr_t start, end; /* file addresses (st_value), end exclusive */
    uint32_t name;        /* offset in names */
};

static struct {
    struct program_function *functions;
    size_t count;
    char *names;
    size_t names_size;
    uintptr_t load_bias;   /* runtime address - file address */
    const void *map_start; /* dladdr's dli_fbase for the program */
} program;

static int by_start(const void *a, const void *b)
{
    const struct program_function *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The first object dl_iterate_phdr reports is the program itself. */
static int note_program(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uintptr_t lowest = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_vaddr < lowest)
            lowest = info->dlpi_phdr[i].p_vaddr;
    program.load_bias = info->dlpi_addr;
    /* dladdr's dli_fbase for it: the lowest segment's page (glibc rtld.c, l_map_start) */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    program.map_start =
        lowest == UINTPTR_MAX ? NULL : (const void *)(info->dlpi_addr + (lowest & ~(page - 1)));
    return 1;
}

static void *read_at(int fd, uint64_t offset, uint64_t size)
{
    if (size == 0 || size > MAX_SYMBOL_NAMES)
        return NULL;
    void *data = malloc(size);
    if (data && pread(fd, data, size, (off_t)offset) != (ssize_t)size) {
        free(data);
        data = NULL;
    }
    return data;
}

/* Reads the function symbols of /proc/self/exe's .symtab (ELF64 of this machine). */
static void read_program_functions(void)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    Elf64_Ehdr header;
    Elf64_Shdr *sections = NULL;
    Elf64_Sym *symbols = NULL;
    if (pread(fd, &header, sizeof header, 0) != sizeof header ||
        memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_shentsize != sizeof(Elf64_Shdr))
        goto done;
    sections = read_at(fd, header.e_shoff, (uint64_t)header.e_shnum * sizeof *sections);
    for (int i = 0; sections && i < header.e_shnum; i++) {
        if (sections[i].sh_type != SHT_SYMTAB || sections[i].sh_link >= header.e_shnum ||
            sections[i].sh_entsize != sizeof(Elf64_Sym))
            continue;
        size_t count = sections[i].sh_size / sizeof(Elf64_Sym);
        if (count > MAX_PROGRAM_SYMBOLS)
            count = MAX_PROGRAM_SYMBOLS;
        const Elf64_Shdr *strings = &sections[sections[i].sh_link];
        symbols = read_at(fd, sections[i].sh_offset, count * sizeof(Elf64_Sym));
        program.names = read_at(fd, strings->sh_offset, strings->sh_size);
        program.functions = symbols && program.names ? malloc(count * sizeof *program.functions) : NULL;
        if (!program.functions)
            break;
        program.names_size = strings->sh_size;
        program.names[program.names_size - 1] = '\0';
        for (size_t s = 0; s < count; s++)
            if (ELF64_ST_TYPE(symbols[s].st_info) == STT_FUNC && symbols[s].st_value && symbols[s].st_size &&
                symbols[s].st_name < program.names_size)
                program.functions[program.count++] = (struct program_function){
                    symbols[s].st_value, symbols[s].st_value + symbols[s].st_size, symbols[s].st_name};
        qsort(program.functions, program.count, sizeof *program.functions, by_start);
        break;
    }
done:
    free(symbols);
    free(sections);
    close(fd);
}

void native_caller_prepare(void)
{
    void *frames[2];
    backtrace(frames, 2);
    if (program.functions || program.names)
        return; /* prepared before (the collector of a fork child) */
    dl_iterate_phdr(note_program, NULL);
    read_program_functions();
}

/* The program function holding address, or NULL. */
static const struct program_function *program_function(uintptr_t address)
{
    uintptr_t file_address = address - program.load_bias;
    size_t low = 0, high = program.count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (program.functions[middle].start <= file_address)
            low = middle + 1;
        else
            high = middle;
    }
    if (low == 0 || file_address >= program.functions[low - 1].end)
        return NULL;
    return &program.functions[low - 1];
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int starts_with_any(const char *name, const char *const *prefixes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* CUDA's own libraries and CUPTI's (cupti_callbacks.h: callbacks run on the calling thread, inside
 * the API call). */
static int is_cuda_library(const char *object)
{
    static const char *const prefixes[] = {"libcuda.", "libcudart", "libcupti", "libnvperf", "libcuda-"};
    return starts_with_any(object, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

/* The CUDA runtime's functions inside a program or library that links it statically (nvcc's
 * default, -cudart static): the API entry points and cudart's internals ("cudart::...",
 * "__cudart123"). */
static int is_cuda_runtime_function(const char *name)
{
    static const char *const prefixes[] = {"cuda", "__cuda", "_ZN6cudart", "__cudart"};
    return starts_with_any(name, prefixes, sizeof prefixes / sizeof prefixes[0]);
}

int native_caller_describe(char *source, size_t size)
{
    void *frames[MAX_NATIVE_FRAMES];
    int count = backtrace(frames, MAX_NATIVE_FRAMES);
    Dl_info self;
    if (!dladdr((void *)native_caller_describe, &self))
        return 0;
    /* Frames before the first of this object are the unwinder's (or a sanitizer's interceptor);
     * then come this object's own, CUPTI's and CUDA's, then the caller. */
    int seen_self = 0;
    for (int i = 0; i < count; i++) {
        /* a return address may lie just past a function's end (a call as its last instruction):
         * the call itself is one byte before it */
        uintptr_t return_address = (uintptr_t)frames[i];
        Dl_info info;
        if (!dladdr((void *)(return_address - 1), &info) || !info.dli_fbase)
            continue;
        if (info.dli_fbase == self.dli_fbase) {
            seen_self = 1;
            continue;
        }
        const char *object =
            info.dli_fname && info.dli_fname[0] ? base_name(info.dli_fname) : program_invocation_short_name;
        if (!seen_self || is_cuda_library(object))
            continue;
        const char *function = info.dli_sname;
        uintptr_t start = (uintptr_t)info.dli_saddr;
        const struct program_function *own =
            info.dli_fbase == program.map_start ? program_function(return_address - 1) : NULL;
        if (own) {
            function = program.names + own->name;
            start = own->start + program.load_bias;
        }
        if (function && is_cuda_runtime_function(function))
            continue;
        if (function && start)
            snprintf(source, size, "%s+0x%lx (%s)", function, (unsigned long)(return_address - start),
                     object);
        else
            snprintf(source, size, "%s+0x%lx", object,
                     (unsigned long)(return_address - (uintptr_t)info.dli_fbase));
        return 1;
    }
    return 0;
}
