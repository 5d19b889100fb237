// Each devnet rollup node's P2P identity: a key file in the work directory (kept across --reuse, so peer IDs stay
// the same), its peer ID and the loopback multiaddr the other nodes dial as a static peer. devnet.json lists them.
import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
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
