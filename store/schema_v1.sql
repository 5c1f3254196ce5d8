-- overlapscope trace store, schema version 1, frozen: the format of traces written before version 2
-- (docs/trace-format.md, "Version 1"). Nothing writes it any more; store_open checks a version 1
-- trace's tables against this file, and tests and benchmarks build version 1 files from it. Its
-- last part is the indexes version 1 writers built (store_finalize then). Never edit it: traces
-- users keep were written this way.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT
);

CREATE TABLE strings (
    id    INTEGER PRIMARY KEY,
    value TEXT NOT NULL UNIQUE
);

CREATE TABLE processes (
    process_id      INTEGER PRIMARY KEY,
    pid             INTEGER NOT NULL,
    parent_pid      INTEGER,
    host            TEXT,
    command_line    TEXT,
    rank            INTEGER,
    local_rank      INTEGER,
    world_size      INTEGER,
    start_ns        INTEGER,
    end_ns          INTEGER,
    exit_status     INTEGER,
    term_signal     INTEGER,
    dropped_records INTEGER NOT NULL DEFAULT 0,
    source_file     TEXT
);

CREATE TABLE devices (
    process_id                    INTEGER NOT NULL,
    device_id                     INTEGER NOT NULL,
    name                          TEXT,
    uuid                          TEXT,
    pci_bus_id                    INTEGER,
    sm_count                      INTEGER,
    compute_capability_major      INTEGER,
    compute_capability_minor      INTEGER,
    max_blocks_per_sm             INTEGER,
    max_warps_per_sm              INTEGER,
    max_threads_per_sm            INTEGER,
    max_threads_per_block         INTEGER,
    max_registers_per_sm          INTEGER,
    max_registers_per_block       INTEGER,
    max_shared_memory_per_sm      INTEGER,
    max_shared_memory_per_block   INTEGER,
    max_shared_memory_per_block_optin INTEGER,
    global_memory_bytes           INTEGER,
    global_memory_bandwidth_kbps  INTEGER,
    l2_cache_bytes                INTEGER,
    core_clock_khz                INTEGER,
    copy_engine_count             INTEGER,
    warp_size                     INTEGER,
    PRIMARY KEY (process_id, device_id)
);

CREATE TABLE streams (
    process_id        INTEGER NOT NULL,
    device_id         INTEGER,
    context_id        INTEGER NOT NULL,
    stream_id         INTEGER NOT NULL,
    is_legacy_default INTEGER NOT NULL DEFAULT 0,
    is_per_thread_default INTEGER NOT NULL DEFAULT 0,
    priority          INTEGER,
    flags             INTEGER,
    label             TEXT,
    PRIMARY KEY (process_id, context_id, stream_id)
);

CREATE TABLE kernels (
    process_id            INTEGER NOT NULL,
    device_id             INTEGER NOT NULL,
    context_id            INTEGER,
    stream_id             INTEGER NOT NULL,
    correlation_id        INTEGER,
    start_ns              INTEGER NOT NULL,
    end_ns                INTEGER NOT NULL,
    queued_ns             INTEGER,
    submitted_ns          INTEGER,
    grid_x                INTEGER,
    grid_y                INTEGER,
    grid_z                INTEGER,
    block_x               INTEGER,
    block_y               INTEGER,
    block_z               INTEGER,
    cluster_x             INTEGER,
    cluster_y             INTEGER,
    cluster_z             INTEGER,
    registers_per_thread  INTEGER,
    static_shared_bytes   INTEGER,
    dynamic_shared_bytes  INTEGER,
    local_memory_per_thread_bytes INTEGER,
    local_memory_total_bytes INTEGER,
    shared_memory_executed_bytes INTEGER,
    shared_memory_config  INTEGER,
    launch_type           INTEGER,
    is_device_launched    INTEGER,
    graph_id              INTEGER,
    graph_node_id         INTEGER,
    channel_id            INTEGER,
    channel_type          INTEGER,
    priority              INTEGER,
    name_id               INTEGER NOT NULL
);

CREATE TABLE memcpys (
    process_id      INTEGER NOT NULL,
    device_id       INTEGER NOT NULL,
    context_id      INTEGER,
    stream_id       INTEGER NOT NULL,
    correlation_id  INTEGER,
    start_ns        INTEGER NOT NULL,
    end_ns          INTEGER NOT NULL,
    copy_kind       INTEGER NOT NULL,
    src_kind        INTEGER,
    dst_kind        INTEGER,
    bytes           INTEGER NOT NULL,
    src_device_id   INTEGER,
    dst_device_id   INTEGER,
    is_async        INTEGER,
    channel_id      INTEGER,
    channel_type    INTEGER,
    copy_count      INTEGER NOT NULL DEFAULT 1,
    graph_id        INTEGER,
    graph_node_id   INTEGER
);

CREATE TABLE memsets (
    process_id      INTEGER NOT NULL,
    device_id       INTEGER NOT NULL,
    context_id      INTEGER,
    stream_id       INTEGER NOT NULL,
    correlation_id  INTEGER,
    start_ns        INTEGER NOT NULL,
    end_ns          INTEGER NOT NULL,
    value           INTEGER,
    bytes           INTEGER NOT NULL,
    memory_kind     INTEGER,
    is_async        INTEGER,
    channel_id      INTEGER,
    channel_type    INTEGER,
    graph_id        INTEGER,
    graph_node_id   INTEGER
);

CREATE TABLE synchronizations (
    process_id      INTEGER NOT NULL,
    context_id      INTEGER,
    stream_id       INTEGER,
    event_id        INTEGER,
    sync_type       INTEGER NOT NULL,
    correlation_id  INTEGER,
    start_ns        INTEGER NOT NULL,
    end_ns          INTEGER NOT NULL
);

CREATE TABLE cuda_events (
    process_id      INTEGER NOT NULL,
    device_id       INTEGER,
    context_id      INTEGER,
    stream_id       INTEGER,
    event_id        INTEGER NOT NULL,
    correlation_id  INTEGER,
    record_ns       INTEGER
);

CREATE TABLE api_calls (
    process_id      INTEGER NOT NULL,
    thread_id       INTEGER NOT NULL,
    api_domain      INTEGER NOT NULL,
    callback_id     INTEGER,
    name_id         INTEGER NOT NULL,
    correlation_id  INTEGER,
    start_ns        INTEGER NOT NULL,
    end_ns          INTEGER NOT NULL,
    return_value    INTEGER
);

CREATE TABLE nvtx (
    process_id      INTEGER NOT NULL,
    thread_id       INTEGER,
    device_id       INTEGER,
    stream_id       INTEGER,
    kind            INTEGER NOT NULL,
    domain_id       INTEGER,
    message_id      INTEGER NOT NULL,
    category        INTEGER,
    color           INTEGER,
    start_ns        INTEGER NOT NULL,
    end_ns          INTEGER NOT NULL,
    depth           INTEGER
);

CREATE TABLE collectives (
    process_id      INTEGER NOT NULL,
    device_id       INTEGER,
    stream_id       INTEGER,
    op              TEXT NOT NULL,
    bytes           INTEGER,
    element_count   INTEGER,
    dtype           TEXT,
    root            INTEGER,
    algorithm       TEXT,
    protocol        TEXT,
    communicator    TEXT,
    rank            INTEGER,
    nranks          INTEGER,
    sequence_number INTEGER,
    kernel_rowid    INTEGER,
    start_ns        INTEGER,
    end_ns          INTEGER,
    detail_source   INTEGER NOT NULL
);

CREATE TABLE warnings (
    process_id      INTEGER,
    time_ns         INTEGER,
    code            TEXT NOT NULL,
    message         TEXT NOT NULL
);

-- Where in the program each host API call was made (docs/trace-format.md, store/call_sources.h):
-- written by the importers that know it, and by the collector. Added within schema version 1:
-- traces written before it lack the table, and readers check for it.
CREATE TABLE call_sources (
    process_id      INTEGER NOT NULL,
    correlation_id  INTEGER NOT NULL,
    kind            INTEGER NOT NULL,
    source_id       INTEGER NOT NULL
);

-- The renderer's cache of the whole GPU timeline (docs/trace-format.md, render/overview.h): empty
-- until a writer's finishing step fills it; owned here with every other table of the format.
CREATE TABLE render_overview (
    part            INTEGER PRIMARY KEY,
    what            INTEGER NOT NULL,
    process_id      INTEGER,
    device_id       INTEGER,
    stream_id       INTEGER,
    start_ns        INTEGER,
    end_ns          INTEGER,
    columns         INTEGER,
    kernels_rowid   INTEGER,
    memcpys_rowid   INTEGER,
    memsets_rowid   INTEGER,
    interval_count  INTEGER,
    kinds           INTEGER,
    busy            BLOB,
    counts          BLOB,
    cells           BLOB,
    kept            BLOB
);

CREATE INDEX IF NOT EXISTS kernels_by_lane ON kernels (process_id, device_id, start_ns);
CREATE INDEX IF NOT EXISTS kernels_by_correlation ON kernels (process_id, correlation_id);
CREATE INDEX IF NOT EXISTS memcpys_by_lane ON memcpys (process_id, device_id, start_ns);
CREATE INDEX IF NOT EXISTS memcpys_by_correlation ON memcpys (process_id, correlation_id);
CREATE INDEX IF NOT EXISTS memsets_by_lane ON memsets (process_id, device_id, start_ns);
CREATE INDEX IF NOT EXISTS synchronizations_by_time ON synchronizations (process_id, start_ns);
CREATE INDEX IF NOT EXISTS cuda_events_by_event ON cuda_events (process_id, event_id, correlation_id);
-- Covering: the analyzer looks up the launch of every op that waited (one index seek, no row fetch).
CREATE INDEX IF NOT EXISTS api_calls_by_correlation ON api_calls (process_id, correlation_id, start_ns, end_ns, thread_id, name_id);
CREATE INDEX IF NOT EXISTS api_calls_by_thread ON api_calls (process_id, thread_id, start_ns);
CREATE INDEX IF NOT EXISTS call_sources_by_call ON call_sources (process_id, correlation_id);
CREATE INDEX IF NOT EXISTS nvtx_by_time ON nvtx (process_id, start_ns);
CREATE INDEX IF NOT EXISTS collectives_by_kernel ON collectives (kernel_rowid);
