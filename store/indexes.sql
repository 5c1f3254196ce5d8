-- Indexes the readers need; created by store_finalize() once, after the bulk of the rows are in
-- (a recording: at the merge, never in the per-process files while the job runs), because building
-- them at the end is several times cheaper than maintaining them per insert. Named as in version 1;
-- the kernels and api_calls ones index the tables under those views.
CREATE INDEX IF NOT EXISTS kernels_by_lane ON kernel_runs (process_id, device_id, start_ns);
CREATE INDEX IF NOT EXISTS kernels_by_correlation ON kernel_runs (process_id, correlation_id);
CREATE INDEX IF NOT EXISTS memcpys_by_lane ON memcpys (process_id, device_id, start_ns);
CREATE INDEX IF NOT EXISTS memcpys_by_correlation ON memcpys (process_id, correlation_id);
CREATE INDEX IF NOT EXISTS memsets_by_lane ON memsets (process_id, device_id, start_ns);
CREATE INDEX IF NOT EXISTS synchronizations_by_time ON synchronizations (process_id, start_ns);
CREATE INDEX IF NOT EXISTS cuda_events_by_event ON cuda_events (process_id, event_id, correlation_id);
-- Not covering (version 1's held start, end, thread and name too): the analyzer looks up the launch of
-- an op that waited, a seek and one row fetch, and the copy of four columns was a sixth of the file.
CREATE INDEX IF NOT EXISTS api_calls_by_correlation ON api_call_runs (process_id, correlation_id);
CREATE INDEX IF NOT EXISTS api_calls_by_thread ON api_call_runs (process_id, thread_id, start_ns);
CREATE INDEX IF NOT EXISTS call_sources_by_call ON call_sources (process_id, correlation_id);
CREATE INDEX IF NOT EXISTS nvtx_by_time ON nvtx (process_id, start_ns);
CREATE INDEX IF NOT EXISTS collectives_by_kernel ON collectives (kernel_rowid);
