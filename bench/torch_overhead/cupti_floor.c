/* cupti_floor.c: the floor of bench/torch_overhead: a CUPTI injection library that enables only
 * kernel, memcpy and memset activity and discards every buffer unread. What it costs a job is what
 * CUPTI itself costs for the GPU activity a trace must have; overlapscope record's distance from
 * it is the collector's own cost. At exit it prints the records CUPTI dropped, so the floor is
 * known to have kept up. Not part of overlapscope: built only for the benchmark. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cupti.h>

#define FLOOR_BUFFER_BYTES (8u << 20)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, FLOOR_BUFFER_BYTES);
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

__attribute__((visibility("default"))) int InitializeInjection(void)
{
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS)
        fprintf(stderr, "cupti_floor: could not enable CUPTI activity\n");
    atexit(at_exit);
    return 1;
}
