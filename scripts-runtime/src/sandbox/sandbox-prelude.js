// Evaluated inside QuickJS before the customer's script, once per run. It receives the child's
// native functions (hostCall, log, uuid, setTimer, clearTimer) and returns the functions the child
// drives the run with. Everything the script can reach is defined here: the `nango` object handed
// to exec/onWebhook, console, timers, crypto.randomUUID and the createSync/createOnEvent helpers.
// The parent re-validates every host call, so nothing here is a security boundary; the checks are
// here to throw a TypeError at the line of the script that made the mistake.
(function prelude(native) {
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const keys = Object.keys;
  const isArray = Array.isArray;
  const freeze = Object.freeze;
  const LEVELS = ["debug", "info", "warn", "error"];
  const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
  const PROXY_OPTIONS = [
    "endpoint",
    "method",
    "params",
    "data",
    "headers",
    "retries",
    "retryOn",
    "baseUrlOverride",
    "decompress",
    "responseType",
    "providerConfigKey",
    "connectionId",
  ];

  /** Thrown by the script API when a call fails: `status` and `body` as the host reported them. */
  class ScriptApiError extends Error {
    constructor(message, details) {
      super(message);
      this.name = "ScriptApiError";
      this.status = details.status;
      this.body = details.body;
      this.code = details.code;
      // axios-like, as Nango scripts read `err.response.status` and `err.response.data`
      this.response = { status: details.status, data: details.body, headers: details.headers || {} };
    }
  }

  /**
   * Thrown by an action to answer a descriptive error (Nango's ActionError): `payload` is answered
   * as the error's payload.
   */
  class ActionError extends Error {
    constructor(payload) {
      super(typeof payload === "string" ? payload : "the action failed");
      this.name = "ActionError";
      this.type = "action_script_runtime_error";
      if (payload !== undefined) this.payload = payload;
    }
  }

  const kindOf = (value) => {
    if (value === null) return "null";
    if (isArray(value)) return "an array";
    if (typeof value === "string") return `the string ${stringify(value.slice(0, 60))}`;
    return typeof value === "object" ? "an object" : typeof value;
  };
  const isPlainObject = (value) => value !== null && typeof value === "object" && !isArray(value);

  // Logs ------------------------------------------------------------------------------------------
  let logsOpen = true;
  const formatOne = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    if (typeof value === "function") return `[Function ${value.name || "anonymous"}]`;
    if (value === undefined) return "undefined";
    if (typeof value === "bigint") return `${value}n`;
    if (typeof value === "symbol") return String(value);
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch {
      return Object.prototype.toString.call(value);
    }
  };
  const write = (level, args) => {
    if (!logsOpen) return;
    let line = "";
    for (let i = 0; i < args.length; i++) line += (i === 0 ? "" : " ") + formatOne(args[i]);
    logsOpen = native.log(level, line);
  };
  /** Nango's form: `nango.log(...args)`, optionally ending with `{ level: "warn" }`. */
  const nangoLog = (...args) => {
    const last = args[args.length - 1];
    if (args.length > 1 && isPlainObject(last) && keys(last).length === 1 && LEVELS.includes(last.level)) {
      write(last.level, args.slice(0, -1));
    } else {
      write("info", args);
    }
  };
  const console = freeze({
    log: (...args) => write("info", args),
    info: (...args) => write("info", args),
    warn: (...args) => write("warn", args),
    error: (...args) => write("error", args),
    debug: (...args) => write("debug", args),
  });

  // Host calls ------------------------------------------------------------------------------------
  const call = async (method, args) => {
    const reply = parse(await native.hostCall(method, stringify(args)));
    if (reply.ok) return reply.value;
    if (reply.error.type === "TypeError") throw new TypeError(reply.error.message);
    throw new ScriptApiError(reply.error.message, reply.error);
  };

  const proxyConfig = (name, config, method) => {
    if (!isPlainObject(config)) {
      throw new TypeError(
        `nango.${name}(config): config must be an object like { endpoint: "/calendars" }, got ${kindOf(config)}`,
      );
    }
    for (const key of keys(config)) {
      if (!PROXY_OPTIONS.includes(key)) {
        throw new TypeError(`nango.${name}(config): unknown option "${key}" (allowed: ${PROXY_OPTIONS.join(", ")})`);
      }
    }
    if (typeof config.endpoint !== "string" || config.endpoint === "") {
      throw new TypeError(
        `nango.${name}(config): config.endpoint must be a non-empty string, got ${kindOf(config.endpoint)}`,
      );
    }
    const chosen = method || (config.method === undefined ? "GET" : config.method);
    if (typeof chosen !== "string" || !METHODS.includes(chosen.toUpperCase())) {
      throw new TypeError(
        `nango.${name}(config): config.method must be one of ${METHODS.join(", ")}, got ${kindOf(chosen)}`,
      );
    }
    if (config.headers !== undefined && !isPlainObject(config.headers)) {
      throw new TypeError(
        `nango.${name}(config): config.headers must be an object of strings, got ${kindOf(config.headers)}`,
      );
    }
    if (config.params !== undefined && !isPlainObject(config.params)) {
      throw new TypeError(`nango.${name}(config): config.params must be an object, got ${kindOf(config.params)}`);
    }
    return { ...config, method: chosen.toUpperCase() };
  };
  const request = (name, method) => async (config) => call("proxy", [proxyConfig(name, config, method)]);

  const optionalString = (name, position, value) => {
    if (value !== undefined && value !== null && typeof value !== "string") {
      throw new TypeError(`nango.${name}: argument ${position} must be a string, got ${kindOf(value)}`);
    }
    return value === undefined ? null : value;
  };
  const metadataArgument = (name, metadata) => {
    if (!isPlainObject(metadata)) {
      throw new TypeError(`nango.${name}(metadata): metadata must be an object, got ${kindOf(metadata)}`);
    }
    return metadata;
  };

  // Records, checkpoints, pagination ----------------------------------------------------------------
  const modelArgument = (name, model) => {
    if (typeof model !== "string" || model === "") {
      throw new TypeError(`nango.${name}: the model must be a non-empty string, got ${kindOf(model)}`);
    }
    return model;
  };
  const recordsArgument = (name, records) => {
    if (!isArray(records))
      throw new TypeError(`nango.${name}(records, model): records must be an array, got ${kindOf(records)}`);
    return records;
  };
  const recordsCall = (name) => async (records, model) =>
    call(name, [recordsArgument(name, records), modelArgument(name, model)]);
  const getRecordsByIds = async (ids, model) => {
    if (!isArray(ids))
      throw new TypeError(`nango.getRecordsByIds(ids, model): ids must be an array, got ${kindOf(ids)}`);
    const pairs = await call("getRecordsByIds", [ids, modelArgument("getRecordsByIds", model)]);
    const byText = new Map(pairs);
    const found = new Map();
    for (const id of ids) if (byText.has(String(id))) found.set(id, byText.get(String(id)));
    return found;
  };

  // Dotted paths ("data.items", "meta.next[0]") as Nango's pagination settings name fields.
  const pathParts = (path) =>
    String(path)
      .replace(/\[(\d+)\]/g, ".$1")
      .split(".")
      .filter((p) => p !== "");
  const getPath = (value, path) => {
    let current = value;
    for (const part of pathParts(path)) {
      if (current === null || typeof current !== "object") return undefined;
      current = current[part];
    }
    return current;
  };
  const setPath = (target, path, value) => {
    const parts = pathParts(path);
    let current = target;
    for (let i = 0; i < parts.length - 1; i++) {
      if (current[parts[i]] === null || typeof current[parts[i]] !== "object") current[parts[i]] = {};
      current = current[parts[i]];
    }
    current[parts[parts.length - 1]] = value;
  };
  /** RFC 8288 Link header → { rel: url }. */
  const linkRels = (header) => {
    const out = {};
    if (typeof header !== "string") return out;
    for (const part of header.split(",")) {
      const m = /<([^>]*)>(.*)/.exec(part.trim());
      const rel = m && /rel="?([^";]+)"?/.exec(m[2]);
      if (rel) for (const name of rel[1].trim().split(/\s+/)) out[name] = m[1];
    }
    return out;
  };
  const checkPagination = (p) => {
    const need = (key, why) => {
      if (!p[key]) throw new TypeError(`nango.paginate: ${key} is required ${why}`);
    };
    if (p.type === "cursor") {
      need("cursor_name_in_request", "for cursor pagination");
      need("cursor_path_in_response", "for cursor pagination");
    } else if (p.type === "link") {
      if (!p.link_rel_in_response_header && !p.link_path_in_response_body) {
        throw new TypeError(
          "nango.paginate: link pagination needs link_rel_in_response_header or link_path_in_response_body",
        );
      }
    } else if (p.type === "offset") {
      need("offset_name_in_request", "for offset pagination");
    } else {
      throw new TypeError(
        `nango.paginate: pagination type ${stringify(p.type)} is not supported (cursor, link, offset)`,
      );
    }
    if (p.limit && !p.limit_name_in_request)
      throw new TypeError("nango.paginate: limit_name_in_request is required with limit");
  };
  let providerPagination;
  /** Nango's paginate: the provider's settings (its definition's), overridden by `config.paginate`. */
  const paginate = async function* (config) {
    if (!isPlainObject(config))
      throw new TypeError(`nango.paginate(config): config must be an object, got ${kindOf(config)}`);
    providerPagination ??= await call("getPagination", []);
    const given = isPlainObject(config.paginate) ? config.paginate : {};
    const provider = providerPagination?.paginate;
    if (!provider && !given.type) {
      throw new TypeError(
        "nango.paginate: this integration's provider has no pagination settings: pass config.paginate",
      );
    }
    const p = { ...(provider || {}), ...given };
    checkPagination(p);
    const { paginate: _ignored, ...rest } = config;
    const req = { ...rest, method: (config.method || "GET").toUpperCase() };
    const inBody = given.in_body !== undefined ? given.in_body : ["POST", "PUT", "PATCH"].includes(req.method);
    const state = { ...((inBody ? config.data : config.params) || {}) };
    if (p.limit) state[p.limit_name_in_request] = p.limit;
    const apply = () => {
      if (!inBody) {
        req.params = { ...state };
        return;
      }
      const data = {};
      for (const key of keys(state)) setPath(data, key, state[key]);
      req.data = data;
    };
    const fetchPage = async () => {
      const res = await call("proxy", [proxyConfig("paginate", req, null)]);
      const page = p.response_path ? getPath(res.data, p.response_path) : res.data;
      return { res, page };
    };
    if (p.type === "cursor") {
      for (;;) {
        apply();
        const { res, page } = await fetchPage();
        if (!page?.length) return;
        yield page;
        let next = getPath(res.data, p.cursor_path_in_response);
        if (typeof next === "string") next = next.trim() || undefined;
        else if (typeof next !== "number") next = undefined;
        if (next === undefined) return;
        state[p.cursor_name_in_request] = next;
      }
    }
    if (p.type === "offset") {
      let offset = p.offset_start_value || 0;
      for (;;) {
        state[p.offset_name_in_request] = inBody ? offset : String(offset);
        apply();
        const { page } = await fetchPage();
        if (!page?.length) return;
        yield page;
        if (p.limit && page.length < Number(p.limit)) return;
        offset += p.offset_calculation_method === "per-page" ? 1 : page.length;
      }
    }
    apply();
    let previous;
    for (;;) {
      const { res, page } = await fetchPage();
      yield page;
      let next = p.link_rel_in_response_header ? linkRels(res.headers.link)[p.link_rel_in_response_header] : undefined;
      if (!next && p.link_path_in_response_body) next = getPath(res.data, p.link_path_in_response_body);
      if (!next || next === previous) return;
      previous = next;
      const base = providerPagination.baseUrl;
      if (base && next.startsWith(base)) req.endpoint = next.slice(base.length) || "/";
      else if (/^https?:\/\//.test(next)) {
        const m = /^(https?:\/\/[^/?#]+)(.*)$/.exec(next);
        req.baseUrlOverride = m[1];
        req.endpoint = m[2] || "/";
      } else req.endpoint = next;
      delete req.params;
    }
  };

  /** The `nango` object of one run; `context` comes from the caller of the run. */
  const makeNango = (context) =>
    freeze({
      connectionId: context.connectionId ?? null,
      providerConfigKey: context.providerConfigKey ?? null,
      environmentId: context.environmentId ?? null,
      scriptName: context.scriptName ?? null,
      activityLogId: context.runId ?? null,
      lastSyncDate: context.lastSyncDate ? new Date(context.lastSyncDate) : null,
      proxy: request("proxy", null),
      get: request("get", "GET"),
      post: request("post", "POST"),
      put: request("put", "PUT"),
      patch: request("patch", "PATCH"),
      delete: request("delete", "DELETE"),
      getConnection: async (providerConfigKey, connectionId) =>
        call("getConnection", [
          optionalString("getConnection", 1, providerConfigKey),
          optionalString("getConnection", 2, connectionId),
        ]),
      getMetadata: async () => call("getMetadata", []),
      setMetadata: async (metadata) => call("setMetadata", [metadataArgument("setMetadata", metadata)]),
      updateMetadata: async (metadata) => call("updateMetadata", [metadataArgument("updateMetadata", metadata)]),
      getWebhookURL: async () => call("getWebhookURL", []),
      variant: context.variant ?? "base",
      batchSave: recordsCall("batchSave"),
      batchSend: recordsCall("batchSave"),
      batchUpdate: recordsCall("batchUpdate"),
      batchDelete: recordsCall("batchDelete"),
      getRecordsByIds,
      trackDeletesStart: async (model) => call("trackDeletesStart", [modelArgument("trackDeletesStart", model)]),
      trackDeletesEnd: async (model) => call("trackDeletesEnd", [modelArgument("trackDeletesEnd", model)]),
      deleteRecordsFromPreviousExecutions: async (model) =>
        call("deleteRecordsFromPreviousExecutions", [modelArgument("deleteRecordsFromPreviousExecutions", model)]),
      setMergingStrategy: async (merging, model) =>
        call("setMergingStrategy", [merging, modelArgument("setMergingStrategy", model)]),
      getCheckpoint: async () => call("getCheckpoint", []),
      saveCheckpoint: async (checkpoint) => call("saveCheckpoint", [checkpoint]),
      clearCheckpoint: async () => call("clearCheckpoint", []),
      getEnvironmentVariables: async () => call("getEnvironmentVariables", []),
      paginate,
      log: nangoLog,
      ActionError,
      uuid: () => native.uuid(),
    });

  // Timers ----------------------------------------------------------------------------------------
  const timers = new Map();
  let timerSeq = 0;
  const setTimeout = (fn, ms, ...args) => {
    if (typeof fn !== "function") throw new TypeError(`setTimeout(fn, ms): fn must be a function, got ${kindOf(fn)}`);
    const delay = Number(ms);
    const id = ++timerSeq;
    timers.set(id, () => fn(...args));
    native.setTimer(id, Number.isFinite(delay) && delay > 0 ? delay : 0);
    return id;
  };
  const clearTimeout = (id) => {
    if (timers.delete(id)) native.clearTimer(id);
  };
  const fireTimer = (id) => {
    const run = timers.get(id);
    timers.delete(id);
    if (!run) return;
    try {
      run();
    } catch (err) {
      write("error", ["uncaught error in a setTimeout callback:", err]);
    }
  };

  // Declarations ----------------------------------------------------------------------------------
  const declare = (type, helper) => (declaration) => {
    if (!isPlainObject(declaration)) {
      throw new TypeError(`${helper}(declaration): declaration must be an object, got ${kindOf(declaration)}`);
    }
    return { ...declaration, type };
  };
  const nangoModule = freeze({
    createSync: declare("sync", "createSync"),
    createOnEvent: declare("on-event", "createOnEvent"),
    createAction: declare("action", "createAction"),
    ScriptApiError,
    ActionError,
  });

  const define = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });

  // Regular expressions: every match (test, match, matchAll, replace, split, search all go through
  // exec) runs under the sandbox's per-match budget, so that catastrophic backtracking stops with a
  // RegExpTimeoutError instead of holding the run until its deadline. The subject is made a string
  // before the clock starts: only the match itself is timed.
  const regexpExec = RegExp.prototype.exec;
  const apply = Reflect.apply;
  Object.defineProperty(RegExp.prototype, "exec", {
    value: function exec(subject) {
      const text = String(subject);
      native.regex(1, String(this.source));
      try {
        return apply(regexpExec, this, [text]);
      } finally {
        native.regex(0, "");
      }
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
  define("console", console);
  define("setTimeout", setTimeout);
  define("clearTimeout", clearTimeout);
  define("crypto", freeze({ randomUUID: () => native.uuid() }));
  define("createSync", nangoModule.createSync);
  define("createOnEvent", nangoModule.createOnEvent);
  define("createAction", nangoModule.createAction);
  define("ScriptApiError", ScriptApiError);
  define("ActionError", ActionError);
  define("__junctionNango", nangoModule);

  // Driving a run ---------------------------------------------------------------------------------
  const describeError = (err) => {
    try {
      if (err instanceof Error) {
        const out = { thrown: "error", name: String(err.name), message: String(err.message) };
        if (typeof err.stack === "string") out.stack = err.stack;
        if (err instanceof ScriptApiError) {
          out.status = err.status;
          out.body = err.body;
        }
        if (err instanceof ActionError && err.payload !== undefined) out.body = err.payload;
        return out;
      }
      if (typeof err === "string") return { thrown: "string", message: err };
      if (err === undefined || err === null) return { thrown: String(err) };
      if (typeof err === "object") {
        let text;
        try {
          text = stringify(err);
        } catch {
          text = undefined;
        }
        return { thrown: "object", message: text === undefined ? Object.prototype.toString.call(err) : text };
      }
      return { thrown: typeof err, message: String(err) };
    } catch {
      return { thrown: "unknown", message: "the thrown value could not be described" };
    }
  };

  const scriptInvalid = (message) => {
    const err = new Error(message);
    err.name = "ScriptInvalid";
    return err;
  };

  /** Calls `entry` of the module's default export; always resolves to a JSON envelope. */
  const invoke = async (namespace, entry, contextJson, inputJson) => {
    let output;
    try {
      const declaration = namespace.default;
      if (!isPlainObject(declaration)) {
        throw scriptInvalid("the default export is not a declaration: write export default createSync({ ... })");
      }
      const fn = declaration[entry];
      if (typeof fn !== "function") throw scriptInvalid(`the script has no ${entry} function`);
      const input = inputJson === "" ? undefined : parse(inputJson);
      output = await fn.call(declaration, makeNango(parse(contextJson)), input);
    } catch (err) {
      return stringify({ ok: false, error: describeError(err) });
    }
    let json;
    try {
      json = stringify(output);
    } catch (err) {
      const message = `the value returned by ${entry} is not JSON: ${formatOne(err)}`;
      return stringify({ ok: false, error: { thrown: "error", name: "TypeError", message } });
    }
    return `{"ok":true,"output":${json === undefined ? "null" : json}}`;
  };

  // Zod schemas (zero-yaml models, an action's input and output) become JSON Schemas as Nango's CLI
  // makes them: draft 7, what JSON cannot express as {}, dates as date-time strings, void as null.
  const SCHEMA_FIELDS = ["input", "output", "metadata", "checkpoint"];
  const isZod = (value) => value !== null && typeof value === "object" && isPlainObject(value._zod);
  const dateAsString = (found) => {
    if (found.zodSchema._zod.def.type !== "date") return;
    found.jsonSchema.type = "string";
    found.jsonSchema.format = "date-time";
  };
  const jsonSchemaOf = (schema) => {
    const z = globalThis.__junctionZod;
    if (!z) return { $unserializable: "zod" };
    if (schema._zod.def.type === "void") return { type: "null" };
    const out = z.toJSONSchema(schema, { target: "draft-7", unrepresentable: "any", override: dateAsString });
    delete out.$schema;
    return out;
  };
  const projectField = (key, value) => {
    if (SCHEMA_FIELDS.includes(key) && isZod(value)) return jsonSchemaOf(value);
    if (key === "models" && isPlainObject(value)) {
      const models = {};
      for (const name of keys(value)) {
        const model = value[name];
        models[name] = isZod(model) ? jsonSchemaOf(model) : parse(stringify(model) ?? "null");
      }
      return models;
    }
    return parse(stringify(value) ?? "null");
  };

  /** The default export as JSON, functions replaced by a marker: read by the parent's declaration check. */
  const describe = (namespace) => {
    const declaration = namespace.default;
    if (declaration === undefined) return stringify({ export: "missing" });
    if (!isPlainObject(declaration)) {
      const type = declaration === null ? "null" : isArray(declaration) ? "an array" : `a ${typeof declaration}`;
      return stringify({ export: "other", type });
    }
    const fields = {};
    for (const key of keys(declaration)) {
      const value = declaration[key];
      if (value === undefined) continue;
      if (typeof value === "function") {
        fields[key] = { $function: true };
        continue;
      }
      try {
        fields[key] = projectField(key, value);
      } catch {
        fields[key] = { $unserializable: typeof value };
      }
    }
    return stringify({ export: "object", fields });
  };

  return { invoke, describe, fireTimer, describeError: (err) => stringify(describeError(err)) };
});
