// The public Ethereum networks tern-exec knows by flag (--mainnet, --sepolia, --holesky, --hoodi), as geth v1.16
// defines them: the chain configs and blob schedules of params/config.go, the genesis block fields of
// core/genesis.go (the allocations come from @ethereumjs/genesis, checked against geth's genesis hashes), the
// network ids (each network's chain id) and the discovery lists of params/bootnodes.go, kept for when
// execution-layer P2P lands.

export const L1_NETWORKS = ['mainnet', 'sepolia', 'holesky', 'hoodi'] as const;
export type L1Network = (typeof L1_NETWORKS)[number];

export interface L1Preset {
  readonly name: L1Network;
  readonly chainId: bigint;
  readonly networkId: bigint;
  /** geth's <Network>GenesisHash. */
  readonly genesisHash: string;
  /** The chain config in genesis.json `config` form. */
  readonly config: Readonly<Record<string, unknown>>;
  /** The genesis block fields besides the allocations (geth's Default<Network>GenesisBlock). */
  readonly genesis: {
    readonly nonce: string;
    readonly timestamp: string;
    readonly extraData: string;
    readonly gasLimit: string;
    readonly difficulty: string;
  };
  readonly bootnodes: readonly string[];
  /** The EIP-1459 DNS discovery tree of the network's eth protocol (geth's KnownDNSNetwork). */
  readonly dnsDiscovery: string;
}

const blob = (target: number, max: number, baseFeeUpdateFraction: number) => ({ target, max, baseFeeUpdateFraction });
/** geth's Default{Cancun,Prague,Osaka,BPO1,BPO2}BlobConfig, the schedule of all four networks. */
const BLOB_SCHEDULE = {
  cancun: blob(3, 6, 3338477),
  prague: blob(6, 9, 5007716),
  osaka: blob(6, 9, 5007716),
  bpo1: blob(10, 15, 8346193),
  bpo2: blob(14, 21, 11684671),
};

const DNS_PREFIX = 'enrtree://AKA3AM6LPBYEUDMVNU3BSVQJ5AD45Y7YPOHJLEF6W26QOE4VTUDPE@';
const dns = (network: L1Network) => `${DNS_PREFIX}all.${network}.ethdisco.net`;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** Every block fork at genesis (the proof-of-stake test networks launched post-merge or nearly so). */
const AT_GENESIS = (forks: string[]) => Object.fromEntries(forks.map((f) => [f, 0]));
const THROUGH_LONDON = [
  'homesteadBlock',
  'eip150Block',
  'eip155Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'petersburgBlock',
  'istanbulBlock',
  'berlinBlock',
  'londonBlock',
];

export const L1_PRESETS: Readonly<Record<L1Network, L1Preset>> = {
  mainnet: {
    name: 'mainnet',
    chainId: 1n,
    networkId: 1n,
    genesisHash: '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3',
    config: {
      chainId: 1,
      homesteadBlock: 1_150_000,
      daoForkBlock: 1_920_000,
      daoForkSupport: true,
      eip150Block: 2_463_000,
      eip155Block: 2_675_000,
      eip158Block: 2_675_000,
      byzantiumBlock: 4_370_000,
      constantinopleBlock: 7_280_000,
      petersburgBlock: 7_280_000,
      istanbulBlock: 9_069_000,
      muirGlacierBlock: 9_200_000,
      berlinBlock: 12_244_000,
      londonBlock: 12_965_000,
      arrowGlacierBlock: 13_773_000,
      grayGlacierBlock: 15_050_000,
      terminalTotalDifficulty: '58750000000000000000000',
      shanghaiTime: 1681338455,
      cancunTime: 1710338135,
      pragueTime: 1746612311,
      osakaTime: 1764798551,
      bpo1Time: 1765290071,
      bpo2Time: 1767747671,
      depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
      ethash: {},
      blobSchedule: BLOB_SCHEDULE,
    },
    genesis: {
      nonce: hex(66),
      timestamp: '0x0',
      extraData: '0x11bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa',
      gasLimit: hex(5000),
      difficulty: hex(17179869184),
    },
    bootnodes: [
      'enode://d860a01f9722d78051619d1e2351aba3f43f943f6f00718d1b9baa4101932a1f5011f16bb2b1bb35db20d6fe28fa0bf09636d26a87d31de9ec6203eeedb1f666@18.138.108.67:30303',
      'enode://22a8232c3abc76a16ae9d6c3b164f98775fe226f0917b0ca871128a74a8e9630b458460865bab457221f1d448dd9791d24c4e5d88786180ac185df813a68d4de@3.209.45.79:30303',
      'enode://2b252ab6a1d0f971d9722cb839a42cb81db019ba44c08754628ab4a823487071b5695317c8ccd085219c3a03af063495b2f1da8d18218da2d6a82981b45e6ffc@65.108.70.101:30303',
      'enode://4aeb4ab6c14b23e2c4cfdce879c04b0748a20d8e9b59e25ded2a08143e265c6c25936e74cbc8e641e3312ca288673d91f2f93f8e277de3cfa444ecdaaf982052@157.90.35.166:30303',
    ],
    dnsDiscovery: dns('mainnet'),
  },
  sepolia: {
    name: 'sepolia',
    chainId: 11155111n,
    networkId: 11155111n,
    genesisHash: '0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9',
    config: {
      chainId: 11155111,
      ...AT_GENESIS(THROUGH_LONDON),
      muirGlacierBlock: 0,
      daoForkSupport: true,
      terminalTotalDifficulty: '17000000000000000',
      mergeNetsplitBlock: 1735371,
      shanghaiTime: 1677557088,
      cancunTime: 1706655072,
      pragueTime: 1741159776,
      osakaTime: 1760427360,
      bpo1Time: 1761017184,
      bpo2Time: 1761607008,
      depositContractAddress: '0x7f02c3e3c98b133055b8b348b2ac625669ed295d',
      ethash: {},
      blobSchedule: BLOB_SCHEDULE,
    },
    genesis: {
      nonce: '0x0',
      timestamp: hex(1633267481),
      extraData: `0x${Buffer.from('Sepolia, Athens, Attica, Greece!', 'ascii').toString('hex')}`,
      gasLimit: hex(0x1c9c380),
      difficulty: hex(0x20000),
    },
    bootnodes: [
      'enode://4e5e92199ee224a01932a377160aa432f31d0b351f84ab413a8e0a42f4f36476f8fb1cbe914af0d9aef0d51665c214cf653c651c4bbd9d5550a934f241f1682b@138.197.51.181:30303',
      'enode://143e11fb766781d22d92a2e33f8f104cddae4411a122295ed1fdb6638de96a6ce65f5b7c964ba3763bba27961738fef7d3ecc739268f3e5e771fb4c87b6234ba@146.190.1.103:30303',
      'enode://8b61dc2d06c3f96fddcbebb0efb29d60d3598650275dc469c22229d3e5620369b0d3dedafd929835fe7f489618f19f456fe7c0df572bf2d914a9f4e006f783a9@170.64.250.88:30303',
      'enode://10d62eff032205fcef19497f35ca8477bea0eadfff6d769a147e895d8b2b8f8ae6341630c645c30f5df6e67547c03494ced3d9c5764e8622a26587b083b028e8@139.59.49.206:30303',
      'enode://9e9492e2e8836114cc75f5b929784f4f46c324ad01daf87d956f98b3b6c5fcba95524d6e5cf9861dc96a2c8a171ea7105bb554a197455058de185fa870970c7c@138.68.123.152:30303',
    ],
    dnsDiscovery: dns('sepolia'),
  },
  holesky: {
    name: 'holesky',
    chainId: 17000n,
    networkId: 17000n,
    genesisHash: '0xb5f7f912443c940f21fd611f12828d75b534364ed9e95ca4e307729a4661bde4',
    config: {
      chainId: 17000,
      ...AT_GENESIS(THROUGH_LONDON),
      daoForkSupport: true,
      terminalTotalDifficulty: 0,
      shanghaiTime: 1696000704,
      cancunTime: 1707305664,
      pragueTime: 1740434112,
      osakaTime: 1759308480,
      bpo1Time: 1759800000,
      bpo2Time: 1760389824,
      depositContractAddress: '0x4242424242424242424242424242424242424242',
      ethash: {},
      blobSchedule: BLOB_SCHEDULE,
    },
    genesis: {
      nonce: hex(0x1234),
      timestamp: hex(1695902100),
      extraData: '0x',
      gasLimit: hex(0x17d7840),
      difficulty: '0x1',
    },
    bootnodes: [
      'enode://ac906289e4b7f12df423d654c5a962b6ebe5b3a74cc9e06292a85221f9a64a6f1cfdd6b714ed6dacef51578f92b34c60ee91e9ede9c7f8fadc4d347326d95e2b@146.190.13.128:30303',
      'enode://a3435a0155a3e837c02f5e7f5662a2f1fbc25b48e4dc232016e1c51b544cb5b4510ef633ea3278c0e970fa8ad8141e2d4d0f9f95456c537ff05fdf9b31c15072@178.128.136.233:30303',
    ],
    dnsDiscovery: dns('holesky'),
  },
  hoodi: {
    name: 'hoodi',
    chainId: 560048n,
    networkId: 560048n,
    genesisHash: '0xbbe312868b376a3001692a646dd2d7d1e4406380dfd86b98aa8a34d1557c971b',
    config: {
      chainId: 560048,
      ...AT_GENESIS(THROUGH_LONDON),
      muirGlacierBlock: 0,
      daoForkSupport: true,
      terminalTotalDifficulty: 0,
      mergeNetsplitBlock: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 1742999832,
      osakaTime: 1761677592,
      bpo1Time: 1762365720,
      bpo2Time: 1762955544,
      depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
      ethash: {},
      blobSchedule: BLOB_SCHEDULE,
    },
    genesis: {
      nonce: hex(0x1234),
      timestamp: hex(1742212800),
      extraData: '0x',
      gasLimit: hex(0x2255100),
      difficulty: '0x1',
    },
    bootnodes: [
      'enode://2112dd3839dd752813d4df7f40936f06829fc54c0e051a93967c26e5f5d27d99d886b57b4ffcc3c475e930ec9e79c56ef1dbb7d86ca5ee83a9d2ccf36e5c240c@134.209.138.84:30303',
      'enode://60203fcb3524e07c5df60a14ae1c9c5b24023ea5d47463dfae051d2c9f3219f309657537576090ca0ae641f73d419f53d8e8000d7a464319d4784acd7d2abc41@209.38.124.160:30303',
      'enode://8ae4a48101b2299597341263da0deb47cc38aa4d3ef4b7430b897d49bfa10eb1ccfe1655679b1ed46928ef177fbf21b86837bd724400196c508427a6f41602cd@134.199.184.23:30303',
    ],
    dnsDiscovery: dns('hoodi'),
  },
};
