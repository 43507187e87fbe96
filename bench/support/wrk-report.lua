-- Prints wrk's summary as one JSON line (latencies in microseconds), for bench/proxy.bench.ts.
-- Also sends the headers in one order in every run (Host first, then by name), as one client would: wrk
-- builds its request from a Lua table, whose order changes from one wrk process to the next, and each new
-- order makes a new object shape of the headers in a JavaScript server, whose optimised code is then
-- compiled again (docs/benchmarks.md, "Proxy hot path (fifteenth session)").
wrk.format = function(method, path, headers, body)
  method = method or wrk.method
  path = path or wrk.path
  headers = headers or wrk.headers
  body = body or wrk.body
  if not headers["Host"] then headers["Host"] = wrk.host end
  headers["Content-Length"] = body and string.len(body)
  local names = {}
  for name in pairs(headers) do names[#names + 1] = name end
  table.sort(names, function(a, b)
    if a == "Host" or b == "Host" then return a == "Host" end
    return a < b
  end)
  local s = { string.format("%s %s HTTP/1.1", method, path) }
  for _, name in ipairs(names) do s[#s + 1] = string.format("%s: %s", name, headers[name]) end
  s[#s + 1] = ""
  s[#s + 1] = body or ""
  return table.concat(s, "\r\n")
end

done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.status + summary.errors.timeout
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\n',
    summary.requests, summary.duration, errors, latency:percentile(50), latency:percentile(99)))
end
