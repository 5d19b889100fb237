// The engine namespace on an RpcRegistry: decodes JSON params (-32602 on bad shapes), calls EngineApi, encodes
// results. Registered as authenticated, so only the JWT-protected listener serves it.
import { checkArity } from '../../common/rpc/params.js';
import type { RpcRegistry } from '../../common/rpc/registry.js';
import {
  bodyToJson,
  bytesListFromJson,
  envelopeToJson,
  executionPayloadFromJson,
  forkchoiceResultToJson,
  forkchoiceStateFromJson,
  hashesFromJson,
  hashFromJson,
  hexOf,
  invalidParams,
  payloadAttributesFromJson,
  payloadIdFromJson,
  payloadStatusToJson,
  quantityFromJson,
  superchainSignalFromJson,
} from '../../protocol/engine/types.js';
import type { EngineApi } from './api.js';

const opt = (v: unknown) => v !== undefined && v !== null;

export function registerEngineApi(registry: RpcRegistry, api: EngineApi): RpcRegistry {
  const fcu = (version: 1 | 2 | 3) => async (params: unknown[]) => {
    checkArity(params, 1, 2);
    const state = forkchoiceStateFromJson(params[0]);
    const attrs = opt(params[1]) ? payloadAttributesFromJson(params[1]) : undefined;
    return forkchoiceResultToJson(await api.forkchoiceUpdated(version, state, attrs));
  };
  const getPayload = (version: 2 | 3 | 4) => (params: unknown[]) => {
    checkArity(params, 1);
    return envelopeToJson(api.getPayload(version, payloadIdFromJson(params[0])));
  };
  return registry.registerNamespace(
    'engine',
    {
      exchangeCapabilities: (params) => {
        checkArity(params, 1);
        if (!Array.isArray(params[0]) || params[0].some((m) => typeof m !== 'string'))
          throw invalidParams('capabilities must be an array of strings');
        return api.exchangeCapabilities(params[0] as string[]);
      },
      forkchoiceUpdatedV1: fcu(1),
      forkchoiceUpdatedV2: fcu(2),
      forkchoiceUpdatedV3: fcu(3),
      getPayloadV2: getPayload(2),
      getPayloadV3: getPayload(3),
      getPayloadV4: getPayload(4),
      newPayloadV2: async (params) => {
        checkArity(params, 1);
        return payloadStatusToJson(await api.newPayload(2, executionPayloadFromJson(params[0])));
      },
      newPayloadV3: async (params) => {
        checkArity(params, 3);
        if (!opt(params[1]) || !opt(params[2]))
          throw invalidParams('all parameters of engine_newPayloadV3 are required');
        return payloadStatusToJson(
          await api.newPayload(
            3,
            executionPayloadFromJson(params[0]),
            hashesFromJson(params[1], 'expectedBlobVersionedHashes'),
            hashFromJson(params[2], 'parentBeaconBlockRoot'),
          ),
        );
      },
      newPayloadV4: async (params) => {
        checkArity(params, 4);
        if (!opt(params[1]) || !opt(params[2]) || !opt(params[3]))
          throw invalidParams('all parameters of engine_newPayloadV4 are required');
        return payloadStatusToJson(
          await api.newPayload(
            4,
            executionPayloadFromJson(params[0]),
            hashesFromJson(params[1], 'expectedBlobVersionedHashes'),
            hashFromJson(params[2], 'parentBeaconBlockRoot'),
            bytesListFromJson(params[3], 'executionRequests'),
          ),
        );
      },
      getPayloadBodiesByHashV1: (params) => {
        checkArity(params, 1);
        return api.getPayloadBodiesByHash(hashesFromJson(params[0], 'hashes')).map(bodyToJson);
      },
      getPayloadBodiesByRangeV1: (params) => {
        checkArity(params, 2);
        return api
          .getPayloadBodiesByRange(quantityFromJson(params[0], 'start'), quantityFromJson(params[1], 'count'))
          .map(bodyToJson);
      },
      signalSuperchainV1: (params) => {
        checkArity(params, 1);
        return hexOf(api.signalSuperchain(superchainSignalFromJson(params[0])));
      },
    },
    { authenticated: true },
  );
}
