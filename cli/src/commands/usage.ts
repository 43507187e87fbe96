/** `junction --help`: every command, one line each; `junction <command> --help` says more. */
export const USAGE = `usage: junction <command> [arguments] [--json]

Run Junction:
  start                      every service in one process (the embedded default)
  up [--env-file <file>]     the distributed topology on this machine, supervised (docs/distributed.md)
  down                       stop what \`junction up\` started
  serve <name>               one process of the distributed topology (a service, gateway or sandbox)
  rekey [--distributed] [--batch <rows>]   re-encrypt every stored secret under the current key (docs/security.md)

Operate a running Junction over its REST API (JUNCTION_URL, JUNCTION_SECRET_KEY):
  integrations               list, show, create, delete
  connections                list, show, delete
  connect                    a connect link: a connect session's URL for an end user
  metadata                   get, set, update a connection's metadata
  proxy                      call the upstream API as a connection
  deliveries                 list, show, replay, replay-failed (webhook messages)
  channels                   list, stop-all
  scripts                    deploy, list, remove, runs, logs
  syncs                      trigger, status
  secret-keys                list, create, revoke

Run \`junction <command> --help\` for its arguments. Reference: docs/cli.md.`;
