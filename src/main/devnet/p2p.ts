// Each devnet rollup node's P2P identities, kept in key files of the work directory across --reuse so the
// addresses stay the same: the consensus node's libp2p peer ID and multiaddr (the other nodes dial it as a static
// peer), and its engine's devp2p enode (the other engines have it as a bootnode). devnet.json lists them.
import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { obtainHex32File } from '../common/secretFile.js';
import { nodeIdOf } from '../exec/p2p/nodeKey.js';
import { loadOrCreateIdentityKey } from '../node/p2p/identityKey.js';

export interface NodeP2P {
  /** --p2p.priv.path of the node. */
  keyFile: string;
  peerId: string;
  /** /ip4/<host>/tcp/<port>/p2p/<peerId>: what --p2p.static of the other nodes names. */
  multiaddr: string;
  host: string;
  port: number;
}

export function nodeP2P(keyFile: string, host: string, port: number): NodeP2P {
  const { key } = loadOrCreateIdentityKey(keyFile);
  const peerId = peerIdFromPrivateKey(privateKeyFromRaw(key)).toString();
  return { keyFile, peerId, multiaddr: `/ip4/${host}/tcp/${port}/p2p/${peerId}`, host, port };
}

export interface EngineP2P {
  /** --nodekey of the engine. */
  keyFile: string;
  /** enode://<node id>@<host>:<port>: what --bootnodes of the other engines names. */
  enode: string;
  host: string;
  port: number;
}

export function engineP2P(keyFile: string, host: string, port: number): EngineP2P {
  const { secret } = obtainHex32File(keyFile, 'devp2p node key');
  const id = Buffer.from(nodeIdOf(secret)).toString('hex');
  return { keyFile, enode: `enode://${id}@${host}:${port}`, host, port };
}
