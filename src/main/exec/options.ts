// tern-exec's options as one typed record, composed of the options each module declares. cli/execOptions.ts builds
// it from the parsed command line once; from there on no module reads a flag by its name.
import type { Lifecycle } from '../common/lifecycle.js';
import type { LoggerOptions, LogRoot } from '../common/logger/index.js';
import type { HardwareWalletOptions } from './accounts/hardware/discovery.js';
import type { AccountsOptions } from './accounts/manager.js';
import type { PreimageOptions } from './chain/preimages.js';
import type { ConsoleCommandOptions } from './cmd/console.js';
import type { ChainDatabaseOptions } from './cmd/database.js';
import type { ImportCommandOptions } from './cmd/import.js';
import type { SnapshotCommandOptions } from './cmd/pruneState.js';
import type { DevOptions } from './dev/start.js';
import type { ResolvedStorageSettings } from './history/options.js';
import type { ExecObservabilityOptions } from './metrics/observability.js';
import type { NetworkingOptions } from './networking.js';
import type { ExecNodeOptions } from './node.js';
import type { ChainSetupOptions } from './rollup/chainSetup.js';

export interface ExecOptions {
  /** The sub-command (init, import, export, console, attach, execute-witness); undefined runs the node. */
  command: string | undefined;
  /** The sub-command's positional arguments. */
  args: readonly string[];
  logger: LoggerOptions;
  /** --crypto.kzg, and whether it was given (a given library that cannot load is an error, a default one is not). */
  kzg: { library: string; explicit: boolean };
  observability: ExecObservabilityOptions;
  /** --maxpeers, --nodiscover, --syncmode: logged as what they mean while tern-exec has no peers. */
  networking: NetworkingOptions;
  database: ChainDatabaseOptions;
  chainSetup: ChainSetupOptions;
  /** --keystore (default <datadir>/keystore), --lightkdf, --password. */
  accounts: AccountsOptions;
  /** --signer: the external (clef-protocol) signer's endpoint; used instead of the keystore when set. */
  externalSigner: string | undefined;
  /** --usb, --pcscdpath: hardware wallets and smart cards looked for at startup (keystore mode only, as geth). */
  hardwareWallets: HardwareWalletOptions;
  /** The node's options; the storage and preimage parts always resolved (the import command reads them too). */
  node: ExecNodeOptions & { storage: ResolvedStorageSettings; preimages: PreimageOptions };
  /** --dev.*: undefined without --dev. */
  dev: DevOptions | undefined;
  import: ImportCommandOptions;
  /** `snapshot prune-state`. */
  snapshot: SnapshotCommandOptions;
  console: ConsoleCommandOptions;
}

/** What the program's parts get: the options, the logger root and the lifecycle. */
export interface ExecContext {
  readonly options: ExecOptions;
  readonly log: LogRoot;
  readonly lifecycle: Lifecycle;
}
