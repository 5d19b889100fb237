// --graphql, --graphql.corsdomain and --graphql.vhosts. GraphQL lives on the HTTP-RPC listener, so --graphql
// without --http stops the start (the seed: "GraphQL cannot start").
import type { Settings } from '../../cli/parse.js';
import { UsageError } from '../../common/errors.js';
import type { GraphqlHttpOptions } from './http.js';

/** The GraphQL service's options, undefined when --graphql is off; a UsageError when HTTP-RPC is off. */
export function graphqlOptions(settings: Settings): GraphqlHttpOptions | undefined {
  if (!settings.get<boolean>('graphql')) return undefined;
  if (!settings.get<boolean>('http')) {
    throw new UsageError('GraphQL cannot start: --graphql is served on the HTTP-RPC server, enable it with --http');
  }
  return {
    corsDomains: settings.get<string[] | undefined>('graphql.corsdomain'),
    vhosts: settings.get<string[] | undefined>('graphql.vhosts'),
  };
}
