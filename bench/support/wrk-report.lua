-- Prints wrk's summary as one JSON line (latencies in microseconds), for bench/proxy.bench.ts.
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.status + summary.errors.timeout
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, errors, latency:percentile(50), latency:percentile(99)))
end
