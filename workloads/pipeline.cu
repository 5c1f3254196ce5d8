/* pipeline: seed 003's partial-model training. A frozen encoder (forward only) feeds a trained
 * decoder (forward, MSE loss, backward, SGD). The encoder does not depend on the decoder's
 * gradients, so with --pipelined the encoder runs batch n+1 on its own stream while the decoder
 * trains on batch n on another (events order the double-buffered features); --serial runs the
 * same kernels on one stream. Every GEMM leaves most SMs idle, so the two streams overlap and the
 * pipelined loop is faster; both modes must end with bit-identical decoder weights (printed as a
 * checksum), which proves the event ordering is right. Prints steps/s. */
#include "layers.cuh"

#include <stdio.h>
#include <stdlib.h>

enum { SEED_INPUT = 1, SEED_TARGET = 2, SEED_ENCODER = 3, SEED_DECODER = 4 };

struct model {
    int batch, width, encoder_layers, decoder_layers;
    float **encoder_w, **decoder_w, **decoder_dw;
    float *input[2], *features[2], *encoder_scratch[2];
    float **decoder_act; /* output of each decoder layer, kept for backward */
    float *target, *grad[2], *losses;
};

static float *alloc_floats(size_t count)
{
    float *p = NULL;
    WL_CHECK(cudaMalloc(&p, count * sizeof(float)));
    return p;
}

static void model_open(struct model *m)
{
    size_t act = (size_t)m->batch * m->width, weights = (size_t)m->width * m->width;
    float scale = 1.0f / sqrtf((float)m->width) * 1.7f;
    m->encoder_w = (float **)calloc(m->encoder_layers, sizeof(float *));
    m->decoder_w = (float **)calloc(m->decoder_layers, sizeof(float *));
    m->decoder_dw = (float **)calloc(m->decoder_layers, sizeof(float *));
    m->decoder_act = (float **)calloc(m->decoder_layers, sizeof(float *));
    for (int l = 0; l < m->encoder_layers; l++) {
        m->encoder_w[l] = alloc_floats(weights);
        wl_fill(0, m->encoder_w[l], weights, SEED_ENCODER * 1000 + l, scale);
    }
    for (int l = 0; l < m->decoder_layers; l++) {
        m->decoder_w[l] = alloc_floats(weights);
        m->decoder_dw[l] = alloc_floats(weights);
        m->decoder_act[l] = alloc_floats(act);
        wl_fill(0, m->decoder_w[l], weights, SEED_DECODER * 1000 + l, scale);
    }
    for (int i = 0; i < 2; i++) {
        m->input[i] = alloc_floats(act);
        m->features[i] = alloc_floats(act);
        m->encoder_scratch[i] = alloc_floats(act);
        m->grad[i] = alloc_floats(act);
    }
    m->target = alloc_floats(act);
    WL_CHECK(cudaDeviceSynchronize());
}

/* Frozen encoder on batch `index` into features[slot]. */
static void encoder_forward(struct model *m, cudaStream_t stream, int index, int slot)
{
    size_t act = (size_t)m->batch * m->width;
    wl_range_push("encoder %d", index);
    wl_fill(stream, m->input[slot], act, (unsigned long long)SEED_INPUT << 32 | (unsigned)index, 1.0f);
    const float *x = m->input[slot];
    for (int l = 0; l < m->encoder_layers; l++) {
        float *y = l == m->encoder_layers - 1 ? m->features[slot] : m->encoder_scratch[l % 2];
        wl_linear_forward(stream, m->batch, m->width, m->width, x, m->encoder_w[l], y, 1, 0);
        x = y;
    }
    wl_range_pop();
}

/* One decoder training step on features[slot] (batch `index`). */
static void decoder_train(struct model *m, cudaStream_t stream, int index, int slot, float rate)
{
    size_t act = (size_t)m->batch * m->width, weights = (size_t)m->width * m->width;
    int last = m->decoder_layers - 1;
    wl_range_push("decoder %d", index);
    wl_fill(stream, m->target, act, (unsigned long long)SEED_TARGET << 32 | (unsigned)index, 1.0f);
    const float *x = m->features[slot];
    for (int l = 0; l <= last; l++) {
        wl_linear_forward(stream, m->batch, m->width, m->width, x, m->decoder_w[l],
                          m->decoder_act[l], l < last, 0);
        x = m->decoder_act[l];
    }
    wl_mse(stream, m->decoder_act[last], m->target, m->grad[0], act, &m->losses[index]);
    int g = 0;
    for (int l = last; l >= 0; l--) {
        const float *layer_input = l == 0 ? m->features[slot] : m->decoder_act[l - 1];
        wl_linear_backward_weight(stream, m->batch, m->width, m->width, m->grad[g], layer_input,
                                  m->decoder_dw[l], 0);
        if (l > 0) {
            wl_linear_backward_input(stream, m->batch, m->width, m->width, m->grad[g],
                                     m->decoder_w[l], m->grad[1 - g], 0);
            wl_relu_backward(stream, m->grad[1 - g], m->decoder_act[l - 1], act);
            g = 1 - g;
        }
    }
    for (int l = 0; l <= last; l++)
        wl_sgd(stream, m->decoder_w[l], m->decoder_dw[l], weights, rate);
    wl_range_pop();
}

int main(int argc, char **argv)
{
    int pipelined = 1, steps = 40, warmup = 5, device_ordinal = 0;
    struct model m = {32, 2048, 4, 2};
    double rate = 0.01;
    const struct wl_option options[] = {
        {"--pipelined", WL_OPT_SET, &pipelined, "encoder and decoder on two streams", 1},
        {"--serial", WL_OPT_SET, &pipelined, "encoder and decoder on one stream", 0},
        {"--steps", WL_OPT_INT, &steps, "timed training steps (after --warmup steps)", 0},
        {"--warmup", WL_OPT_INT, &warmup, "untimed steps first", 0},
        {"--batch", WL_OPT_INT, &m.batch, "rows per batch", 0},
        {"--width", WL_OPT_INT, &m.width, "features per layer", 0},
        {"--encoder-layers", WL_OPT_INT, &m.encoder_layers, "frozen encoder layers", 0},
        {"--decoder-layers", WL_OPT_INT, &m.decoder_layers, "trained decoder layers", 0},
        {"--lr", WL_OPT_DOUBLE, &rate, "SGD learning rate", 0},
        {"--device", WL_OPT_INT, &device_ordinal, "CUDA device ordinal", 0},
    };
    wl_parse_args(argc, argv,
                  "Seed 003: frozen encoder and trained decoder, pipelined on two streams or "
                  "serial on one; prints steps/s and a weight checksum.",
                  options, sizeof options / sizeof options[0]);
    if (steps < 1 || warmup < 0 || m.batch < 1 || m.width < 1 || m.encoder_layers < 1 ||
        m.decoder_layers < 1)
        wl_fail("need --steps, --batch, --width and layer counts >= 1, --warmup >= 0");

    struct wl_device device;
    wl_device_open(device_ordinal, &device);
    int total = warmup + steps;
    model_open(&m);
    m.losses = wl_device_zeros((size_t)total);
    cudaStream_t encoder_stream, decoder_stream;
    WL_CHECK(cudaStreamCreateWithFlags(&encoder_stream, cudaStreamNonBlocking));
    WL_CHECK(cudaStreamCreateWithFlags(&decoder_stream, cudaStreamNonBlocking));
    if (!pipelined)
        encoder_stream = decoder_stream;
    cudaEvent_t features_ready[2], features_free[2];
    for (int i = 0; i < 2; i++) {
        WL_CHECK(cudaEventCreateWithFlags(&features_ready[i], cudaEventDisableTiming));
        WL_CHECK(cudaEventCreateWithFlags(&features_free[i], cudaEventDisableTiming));
    }

    double start = wl_now_seconds();
    for (int index = 0; index <= total; index++) {
        if (index == warmup) {
            WL_CHECK(cudaDeviceSynchronize());
            start = wl_now_seconds();
        }
        wl_range_push("step %d", index);
        if (index > 0) { /* decoder on batch index-1, as in the seed: first in the loop body */
            int slot = (index - 1) % 2;
            WL_CHECK(cudaStreamWaitEvent(decoder_stream, features_ready[slot], 0));
            decoder_train(&m, decoder_stream, index - 1, slot, (float)rate);
            WL_CHECK(cudaEventRecord(features_free[slot], decoder_stream));
        }
        if (index < total) { /* encoder on batch index, into the slot batch index-2 used */
            int slot = index % 2;
            WL_CHECK(cudaStreamWaitEvent(encoder_stream, features_free[slot], 0));
            encoder_forward(&m, encoder_stream, index, slot);
            WL_CHECK(cudaEventRecord(features_ready[slot], encoder_stream));
        }
        wl_range_pop();
    }
    WL_CHECK(cudaDeviceSynchronize());
    double elapsed = wl_now_seconds() - start;

    float first_loss, last_loss;
    WL_CHECK(cudaMemcpy(&first_loss, &m.losses[0], sizeof first_loss, cudaMemcpyDeviceToHost));
    WL_CHECK(cudaMemcpy(&last_loss, &m.losses[total - 1], sizeof last_loss, cudaMemcpyDeviceToHost));
    wl_device_checksum("losses", m.losses, (size_t)total);
    struct wl_checksum weights = {0, 0};
    for (int l = 0; l < m.decoder_layers; l++) {
        struct wl_checksum c = wl_device_checksum("decoder weights", m.decoder_w[l],
                                                  (size_t)m.width * m.width);
        weights.sum += c.sum;
        weights.magnitude += c.magnitude;
    }
    printf("pipeline: %s, %s, batch %d, width %d, %d+%d layers: %.1f steps/s over %d steps, "
           "loss %.6g -> %.6g, checksum=%.17g/%.17g\n",
           device.name, pipelined ? "pipelined" : "serial", m.batch, m.width, m.encoder_layers,
           m.decoder_layers, (steps) / elapsed, steps, first_loss, last_loss, weights.sum,
           weights.magnitude);
    return 0;
}
