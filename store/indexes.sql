-- Indexes the readers need; created by store_finalize() once, after the bulk of the rows are in,
-- because building them at the end is several times cheaper than maintaining them per insert.
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
