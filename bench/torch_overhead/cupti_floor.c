/* cupti_floor.c: the floor of bench/torch_overhead: a CUPTI injection library that enables only
 * kernel, memcpy and memset activity and discards every buffer unread. What it costs a job is what
 * CUPTI itself costs for the GPU activity a trace must have; overlapscope record's distance from
 * it is the collector's own cost. At exit it prints the records CUPTI dropped, so the floor is
 * known to have kept up. Not part of overlapscope: built only for the benchmark.
 * CUPTI's own knobs, to find whether any makes its cost lower (each read once at injection):
 *   CUPTI_FLOOR_PINNED=1         MEM_ALLOCATION_TYPE_HOST_PINNED: timestamps in pinned host memory
 *   CUPTI_FLOOR_DEVICE_BUFFER=N  DEVICE_BUFFER_SIZE (bytes) and DEVICE_BUFFER_PRE_ALLOCATE_VALUE 8
 *   CUPTI_FLOOR_PER_THREAD=0|1   PER_THREAD_ACTIVITY_BUFFER
 *   CUPTI_FLOOR_ZEROED=1         ZEROED_OUT_ACTIVITY_BUFFER, buffers handed over zeroed (calloc) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#define FLOOR_BUFFER_BYTES (8u << 20)

static int zeroed_buffers;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = zeroed_buffers ? calloc(1, FLOOR_BUFFER_BYTES) : aligned_alloc(8, FLOOR_BUFFER_BYTES);
    *size = *buffer ? FLOOR_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t *buffer, size_t size,
                                      size_t valid_size)
{
    (void)context, (void)stream_id, (void)size, (void)valid_size;
    free(buffer);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    fprintf(stderr, "cupti_floor: dropped %zu\n", dropped);
}

static void set_attribute(CUpti_ActivityAttribute attribute, const char *variable, int is_size)
{
    const char *text = getenv(variable);
    if (!text || !*text)
        return;
    size_t wide = strtoull(text, NULL, 0), size = is_size ? sizeof wide : sizeof(uint8_t);
    uint8_t narrow = (uint8_t)wide;
    CUptiResult result =
        cuptiActivitySetAttribute(attribute, &size, is_size ? (void *)&wide : (void *)&narrow);
    fprintf(stderr, "cupti_floor: %s=%s: %s\n", variable, text, result == CUPTI_SUCCESS ? "set" : "refused");
    if (attribute == CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE && result == CUPTI_SUCCESS) {
        size_t buffers = 8, count_size = sizeof buffers;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, &count_size,
                                  &buffers);
    }
    if (attribute == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER)
        zeroed_buffers = narrow != 0;
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    set_attribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, "CUPTI_FLOOR_PINNED", 0);
    set_attribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, "CUPTI_FLOOR_DEVICE_BUFFER", 1);
    set_attribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, "CUPTI_FLOOR_PER_THREAD", 0);
    set_attribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, "CUPTI_FLOOR_ZEROED", 0);
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS)
        fprintf(stderr, "cupti_floor: could not enable CUPTI activity\n");
    atexit(at_exit);
    return 1;
}
