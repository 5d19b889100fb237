// tern-pair --help: how the command line splits between the two programs, and what is different in one process.

export function pairHelp(version: string): string {
  return `NAME:
   tern-pair - tern-node and tern-exec in one process, the engine in-process

USAGE:
   tern-pair [tern-node flags] -- [tern-exec flags]

VERSION:
   ${version}

DESCRIPTION:
   Runs the execution client (tern-exec) and the rollup node (tern-node) in one Node.js process. Everything
   before the first bare -- is tern-node's, everything after it tern-exec's; each half takes exactly the flags,
   environment variables (TERN_NODE_*, TERN_EXEC_*) and, for tern-exec, the --config file of the program on its
   own, and is checked the same way. Run 'tern-node --help' and 'tern-exec --help' for the flags.

   tern-exec starts first, with all of its listeners as usual (--http, --ws, IPC, --authrpc.*, --metrics), then
   tern-node, which drives tern-exec's Engine API handlers directly (no JSON, no JWT) and reads its chain.
   Ctrl-C or SIGTERM stops tern-node first, then tern-exec.

   Refused here:
     --l2, --l2.jwt-secret, --l2.enginekind, --l2.engine-rpc-timeout (tern-node): there is no engine URL to
       reach; tern-exec still serves --authrpc.* for other clients.
     tern-exec's commands (init, import, ...) and --dev: run tern-exec on its own for them (initialise the
       datadir with 'tern-exec init' before the first run).

   A flag value that is itself -- is written with = (--flag=--).

EXAMPLE:
   tern-exec init --datadir=data/exec genesis.json
   tern-pair --l1=http://127.0.0.1:8545 --l1.beacon=http://127.0.0.1:5052 --rollup.config=rollup.json \\
     -- --datadir=data/exec --http --http.port=9545

OPTIONS:
   --help, -h     this text (on either side of --)
   --version, -v  print the version
`;
}
