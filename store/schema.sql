-- overlapscope trace store, schema version 3.
-- Documented table by table and column by column in docs/trace-format.md; change both together
-- and bump STORE_SCHEMA_VERSION in store/store.h for any change a reader could notice. Version 1,
-- which readers still accept, is frozen in store/schema_v1.sql. Version 3 added the host side (the
-- last four tables); a version 2 trace is version 3 without them (store/checks.c).
-- Every timestamp is an INTEGER count of nanoseconds on one clock per host (the CUPTI timestamp
-- clock for recordings; the trace's own clock for imports). NULL means "not known".

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

-- Kernels, the most numerous rows, are stored in two tables: what repeats from launch to launch of
-- one compiled kernel (its name, block size, registers, shared memory: its shape) once per distinct
-- shape, and per execution what differs (where, when, how long, and the grid, which follows the
-- size of the input). The view `kernels` joins them back into the
-- columns of version 1, and every reader reads that view (docs/trace-format.md, "Version 2").
CREATE TABLE kernel_shapes (
    shape_id              INTEGER PRIMARY KEY,
    name_id               INTEGER NOT NULL,
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
    channel_type          INTEGER,
    priority              INTEGER
);
-- Writers find a shape already stored by all its columns (IS: NULL matches NULL).
CREATE INDEX kernel_shapes_by_value ON kernel_shapes (name_id, block_x, block_y, block_z, cluster_x, cluster_y, cluster_z, registers_per_thread, static_shared_bytes, dynamic_shared_bytes,
    local_memory_per_thread_bytes, local_memory_total_bytes, shared_memory_executed_bytes, shared_memory_config,
    launch_type, is_device_launched, channel_type, priority);

-- One row per kernel execution: end_ns is stored as duration_ns (a few bytes where an absolute
-- end takes eight). The rowid is the kernel's rowid (collectives.kernel_rowid refers to it). The
-- views join with LEFT JOIN: the runs stay the outer loop (their indexes serve the readers'
-- ranges), and SQLite can leave out the lookup of a shape no column of which a query reads.
CREATE TABLE kernel_runs (
    process_id            INTEGER NOT NULL,
    device_id             INTEGER NOT NULL,
    context_id            INTEGER,
    stream_id             INTEGER NOT NULL,
    correlation_id        INTEGER,
    start_ns              INTEGER NOT NULL,
    duration_ns           INTEGER NOT NULL,
    queued_ns             INTEGER,
    submitted_ns          INTEGER,
    grid_x                INTEGER,
    grid_y                INTEGER,
    grid_z                INTEGER,
    graph_id              INTEGER,
    graph_node_id         INTEGER,
    channel_id            INTEGER,
    shape_id              INTEGER NOT NULL
);

CREATE VIEW kernels AS SELECT r.rowid AS rowid, r.process_id AS process_id, r.device_id AS device_id,
    r.context_id AS context_id, r.stream_id AS stream_id, r.correlation_id AS correlation_id,
    r.start_ns AS start_ns, r.start_ns + r.duration_ns AS end_ns, r.queued_ns AS queued_ns,
    r.submitted_ns AS submitted_ns, r.grid_x AS grid_x, r.grid_y AS grid_y, r.grid_z AS grid_z,
    s.block_x AS block_x, s.block_y AS block_y, s.block_z AS block_z, s.cluster_x AS cluster_x,
    s.cluster_y AS cluster_y, s.cluster_z AS cluster_z, s.registers_per_thread AS registers_per_thread,
    s.static_shared_bytes AS static_shared_bytes, s.dynamic_shared_bytes AS dynamic_shared_bytes,
    s.local_memory_per_thread_bytes AS local_memory_per_thread_bytes,
    s.local_memory_total_bytes AS local_memory_total_bytes,
    s.shared_memory_executed_bytes AS shared_memory_executed_bytes,
    s.shared_memory_config AS shared_memory_config, s.launch_type AS launch_type,
    s.is_device_launched AS is_device_launched, r.graph_id AS graph_id, r.graph_node_id AS graph_node_id,
    r.channel_id AS channel_id, s.channel_type AS channel_type, s.priority AS priority, s.name_id AS name_id
    FROM kernel_runs r LEFT JOIN kernel_shapes s ON s.shape_id = r.shape_id;

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

-- Host API calls, as many as kernels or more, stored like kernels: the function called (domain,
-- callback id, name) once per distinct function, each call with its end as duration_ns. The view
-- `api_calls` gives the columns of version 1.
CREATE TABLE api_functions (
    function_id     INTEGER PRIMARY KEY,
    api_domain      INTEGER NOT NULL,
    callback_id     INTEGER,
    name_id         INTEGER NOT NULL
);
CREATE INDEX api_functions_by_value ON api_functions (name_id, api_domain, callback_id);

CREATE TABLE api_call_runs (
    process_id      INTEGER NOT NULL,
    thread_id       INTEGER NOT NULL,
    correlation_id  INTEGER,
    start_ns        INTEGER NOT NULL,
    duration_ns     INTEGER NOT NULL,
    return_value    INTEGER,
    function_id     INTEGER NOT NULL
);

CREATE VIEW api_calls AS SELECT r.rowid AS rowid, r.process_id AS process_id, r.thread_id AS thread_id,
    f.api_domain AS api_domain, f.callback_id AS callback_id, f.name_id AS name_id,
    r.correlation_id AS correlation_id, r.start_ns AS start_ns, r.start_ns + r.duration_ns AS end_ns,
    r.return_value AS return_value
    FROM api_call_runs r LEFT JOIN api_functions f ON f.function_id = r.function_id;

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
-- version 1 traces written before it lack the table, and readers check for it.
CREATE TABLE call_sources (
    process_id      INTEGER NOT NULL,
    correlation_id  INTEGER NOT NULL,
    kind            INTEGER NOT NULL,
    source_id       INTEGER NOT NULL
);

-- When a library's function that wrapped a blocking CUDA call ran (docs/trace-format.md,
-- store/framework_calls.h): torch.cuda.synchronize around cudaDeviceSynchronize. Written by the
-- collector (CPython 3.12+) and the Kineto importer. Added within schema version 3: traces written
-- before it lack the table, and readers check for it.
CREATE TABLE framework_calls (
    process_id      INTEGER NOT NULL,
    thread_id       INTEGER NOT NULL,
    start_ns        INTEGER NOT NULL,
    end_ns          INTEGER NOT NULL,
    function_id     INTEGER NOT NULL  -- strings.id of "FILE:LINE NAME"
);

-- The names of a process's threads (docs/trace-format.md, store/threads.h), where the input names
-- them (nsys ThreadNames) and in recordings. Added within schema version 2: traces written before
-- it lack the table, and readers check for it.
CREATE TABLE threads (
    process_id      INTEGER NOT NULL,
    thread_id       INTEGER NOT NULL,
    name_id         INTEGER NOT NULL,
    PRIMARY KEY (process_id, thread_id)
);

-- Which writer made each process's rows (docs/trace-format.md, store/origins.h): the format it
-- was read from or recorded in ("record", "kineto", "nsys"), the tool that wrote that input and its
-- version where the input says it. Written by every writer since issue 30; added within schema
-- version 3: traces written before it lack the table, and store/origins.c reads them by the legacy
-- rule (the process's source file name).
CREATE TABLE process_origins (
    process_id      INTEGER PRIMARY KEY,
    format          TEXT NOT NULL,
    tool            TEXT NOT NULL,
    version         TEXT
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

-- Version 3: the host side (collector/host_sampler.h, collector/environment_facts.h). Absent from
-- traces of versions 1 and 2: a reader finds no samples there and says what it cannot prove.
CREATE TABLE host_stacks (
    id INTEGER PRIMARY KEY,
    frames TEXT NOT NULL UNIQUE -- innermost first, one "FILE:LINE FUNCTION" per line (\n-separated), at most 8
                                -- frames; a thread with no Python frame: its native caller "native SYMBOL (LIBRARY)"
);
CREATE TABLE host_samples (      -- one row per sample of one thread (the threads that use CUDA and the main thread)
    pid INTEGER NOT NULL,
    tid INTEGER NOT NULL,
    time_ns INTEGER NOT NULL,    -- same clock as every other time in the trace (CLOCK_REALTIME ns, the collector's now_ns)
    state TEXT NOT NULL,         -- scheduler state letter read from /proc/self/task/TID/stat: R, S, D, ... as read
    cpu_ns INTEGER NOT NULL,     -- CPU time (utime+stime) the thread used since its previous sample
    stack_id INTEGER             -- host_stacks.id; NULL when nothing could be read
);
CREATE TABLE process_cpu_samples ( -- one row per sample of every process of the job, children included (DataLoader
                                   -- workers that never use CUDA)
    pid INTEGER NOT NULL,
    parent_pid INTEGER NOT NULL,
    time_ns INTEGER NOT NULL,
    cpu_ns INTEGER NOT NULL,     -- CPU time of all its threads since its previous sample
    state TEXT NOT NULL,         -- of its main thread
    name TEXT NOT NULL           -- /proc/PID/comm
);
CREATE TABLE process_environment ( -- allow-listed variables only (never anything else: secrets live there)
    pid INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL
);
-- meta row: host_sample_hz = the rate sampled at ("0" or absent: not sampled)
