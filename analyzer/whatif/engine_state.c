/* engine_state.c: taking the scratch buffers of a device's replays (engine_state.h), apart from
 * the engine so that the host side (host_time.c) takes its buffers without depending on the
 * engine (engine.c makes and frees them: engine_scratch_new, engine_scratch_free). */
#include "engine_state.h"

#include <stdlib.h>
#include <string.h>

void *engine_scratch_take(struct replay_scratch *scratch, enum scratch_slot slot, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (scratch->sizes[slot] < bytes) {
        free(scratch->slots[slot]);
        scratch->slots[slot] = malloc(bytes);
        scratch->sizes[slot] = scratch->slots[slot] ? bytes : 0;
    }
    return scratch->slots[slot];
}

void *engine_scratch_zeroed(struct replay_scratch *scratch, enum scratch_slot slot, size_t bytes)
{
    void *buffer = engine_scratch_take(scratch, slot, bytes);
    if (buffer)
        memset(buffer, 0, bytes);
    return buffer;
}
