import type { DescMethod, DescMethodUnary } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createConnectRouter,
  createContextKey,
  createContextValues,
  type HandlerContext,
} from "@connectrpc/connect";
import {
  type UniversalHandler,
  universalServerRequestFromFetch,
  universalServerResponseToFetch,
} from "@connectrpc/connect/protocol";
import { codeToHttpStatus, errorToJson } from "@connectrpc/connect/protocol-connect";
import {
  deepJsonField,
  deepValueField,
  ERROR_CODE_HEADER,
  fromConnectError,
  JunctionError,
  type Logger,
  readBytesLimited,
  toConnectError,
  tooDeep,
} from "@junction/platform";
import { MAX_METADATA_BYTES } from "@junction/public-api/limits";
import { PUBLIC_RPC_METHODS, type PublicServiceKey, RPC_PREFIX } from "@junction/public-api/public-rpc";
import { SERVICE_DEFINITIONS } from "@junction/public-api/service-clients";
import { tooLarge } from "../http/read-json.ts";
import type { Authenticator } from "../middleware/authenticate.ts";
import type { Route, RouteContext } from "../router.ts";
import { protocolError } from "./protocol-error.ts";
import { type GuardContext, RPC_GUARDS, type RpcGuard } from "./rpc-guards.ts";

/** The gateway's request, as each public RPC's implementation reads it. */
interface Caller extends GuardContext {
  logger: Logger;
  requestId: string;
  /** Set once the method's implementation runs: an error before it is the protocol layer's reading of the body. */
  methodRan: boolean;
}
const CALLER = createContextKey<Caller | undefined>(undefined);

interface PublicMethod {
  handler: UniversalHandler;
  guard: RpcGuard;
}

/**
 * The public RPCs (PUBLIC_RPC_METHODS) over the Connect protocol, at `/rpc/<package.Service>/<Method>`:
 * the secret key as REST takes it, each method's REST body limit and checks, then the internal client's
 * call; errors are Connect errors carrying Junction's stable code (`junction-error-code`). Any other
 * path under the prefix, an internal RPC included, is Unimplemented: nothing else is reachable.
 */
export function rpcRoutes(authenticator: Authenticator): Route[] {
  const methods = publicMethods();
  return [
    {
      method: "POST",
      pattern: `${RPC_PREFIX}/*`,
      // Authenticated here, so that a refused key is a Connect error too.
      auth: false,
      handler: async (ctx) => {
        try {
          return await serve(methods, authenticator, ctx);
        } catch (err) {
          return connectErrorResponse(err, ctx);
        }
      },
    },
  ];
}

async function serve(methods: Map<string, PublicMethod>, authenticator: Authenticator, ctx: RouteContext) {
  const environmentId = await authenticator.environmentOfHeader(ctx.headers.authorization);
  const path = `/${ctx.params["*"] ?? ""}`;
  const method = methods.get(path);
  if (!method) throw unknownRpc(path);
  const declared = Number(ctx.req.headers.get("content-length") ?? "0");
  if (declared > method.guard.bodyLimit) throw tooLarge(method.guard.bodyLimit);
  const body = await readBytesLimited(ctx.req.body, method.guard.bodyLimit);
  if (body === null) throw tooLarge(method.guard.bodyLimit);
  checkJsonDepth(ctx.req.headers.get("content-type"), body);
  // The body, read within the limit, handed to the Connect handler as a fresh request.
  const bounded = new Request(ctx.req.url, { method: "POST", headers: ctx.req.headers, body: body as BodyInit });
  const request = universalServerRequestFromFetch(bounded, {});
  const caller: Caller = {
    environmentId,
    clients: ctx.clients,
    logger: ctx.logger,
    requestId: ctx.requestId,
    methodRan: false,
  };
  request.contextValues = createContextValues().set(CALLER, caller);
  const answer = await method.handler(request);
  if (answer.status !== 200 && !answer.header?.has(ERROR_CODE_HEADER))
    throw await protocolError(answer, caller.methodRan);
  return universalServerResponseToFetch(answer);
}

/** One Connect handler per public method, by its path under the prefix (`/junction.x.v1.XService/Method`). */
function publicMethods(): Map<string, PublicMethod> {
  // Uncompressed bodies only: the limit read in serve() is then the size the handler parses (no zip bombs).
  const router = createConnectRouter({
    grpc: false,
    grpcWeb: false,
    acceptCompression: [],
    readMaxBytes: MAX_METADATA_BYTES,
    // As REST's strict schemas: a field the message does not have is refused, not ignored.
    jsonOptions: { ignoreUnknownFields: false },
  });
  const guards = new Map<string, RpcGuard>();
  for (const key of Object.keys(PUBLIC_RPC_METHODS) as PublicServiceKey[]) {
    const service = SERVICE_DEFINITIONS[key];
    const byLocalName = service.method as Record<string, DescMethod>;
    for (const name of PUBLIC_RPC_METHODS[key]) {
      const desc = byLocalName[name];
      if (!desc) throw new Error(`${service.typeName} has no method ${name}`);
      const guard = (RPC_GUARDS[key] as Record<string, RpcGuard>)[name] as RpcGuard;
      guards.set(`/${service.typeName}/${desc.name}`, guard);
      const impl = (req: unknown, context: HandlerContext) => delegate(key, name, guard, req, context);
      router.rpc(desc as DescMethodUnary, impl as never);
    }
  }
  const methods = new Map<string, PublicMethod>();
  for (const handler of router.handlers) {
    const guard = guards.get(handler.requestPath);
    if (guard) methods.set(handler.requestPath, { handler, guard });
  }
  return methods;
}

/** Checks the request as the REST route would, then calls the internal service; its errors go back as Connect errors. */
async function delegate(key: PublicServiceKey, name: string, guard: RpcGuard, req: unknown, context: HandlerContext) {
  const caller = context.values.get(CALLER);
  if (!caller) throw new ConnectError("no caller", Code.Internal);
  caller.methodRan = true;
  // A binary body's values, now decoded (JSON text was checked before parsing).
  const deep = deepValueField(req);
  if (deep !== null) throw toConnectError(tooDeep("invalid_body", deep, "body"));
  try {
    await guard.check?.(req, caller);
    const client = caller.clients[key] as unknown as Record<string, (r: unknown) => Promise<unknown>>;
    const res = await (client[name] as (r: unknown) => Promise<unknown>)(req);
    return guard.answer ? guard.answer(res) : res;
  } catch (err) {
    throw toPublicError(err, caller.logger, caller.requestId);
  }
}

/** A domain error keeps its stable code; anything else is `internal_error`, logged and never shown. */
function toPublicError(err: unknown, logger: Logger, requestId: string): ConnectError {
  const domain = fromConnectError(err);
  if (domain.code === "internal_error") logger.error("rpc failed", { requestId, cause: err });
  return toConnectError(domain);
}

/** A Connect unary error answer (the protocol's JSON error body, the stable code in its metadata header). */
function connectErrorResponse(err: unknown, ctx: RouteContext): Response {
  const ce = toPublicError(err, ctx.logger, ctx.requestId);
  const headers = new Headers(ce.metadata);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(errorToJson(ce, undefined)), { status: codeToHttpStatus(ce.code), headers });
}

/** A JSON body's values nested too deep are refused before the protocol layer parses them. */
function checkJsonDepth(contentType: string | null, body: Uint8Array): void {
  if (!/^application\/json\b/i.test(contentType?.trim() ?? "")) return;
  const deep = deepJsonField(new TextDecoder().decode(body));
  if (deep !== null) throw tooDeep("invalid_body", deep, "body");
}

function unknownRpc(path: string): JunctionError {
  return new JunctionError("unknown_rpc", `No public RPC ${path}; docs/rpc.md lists them.`, Code.Unimplemented);
}
