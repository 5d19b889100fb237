// Executes one GraphQL request against the chain: parse, validate (graphql-js's rules plus geth's depth limit of
// 20), execute over a GraphqlRequest, and answer geth's way — `{errors?, data?}`, status 400 whenever the answer
// carries errors.
import {
  buildSchema,
  type DocumentNode,
  type ExecutionResult,
  execute,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import { MAX_QUERY_DEPTH, maxDepthRule } from './depth.js';
import { type GraphqlDeps, GraphqlRequest, Root } from './resolvers.js';
import { installScalars } from './scalars.js';
import { SCHEMA_SDL } from './schema.js';

let schema: GraphQLSchema | undefined;

/** geth's schema with its scalars, built once. */
export function graphqlSchema(): GraphQLSchema {
  if (schema) return schema;
  const built = buildSchema(SCHEMA_SDL);
  installScalars(built);
  schema = built;
  return built;
}

const RULES = [...specifiedRules, maxDepthRule(MAX_QUERY_DEPTH)];

export interface GraphqlParams {
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
}

export interface GraphqlAnswer {
  status: number;
  /** The JSON body: errors first, then data, as geth's graphql.Response marshals. */
  body: string;
}

/** The errors as geth lists them: message, locations and path when known. */
function errorJson(err: GraphQLError): Record<string, unknown> {
  const out: Record<string, unknown> = { message: err.message };
  if (err.locations && err.locations.length > 0) out.locations = err.locations;
  if (err.path && err.path.length > 0) out.path = err.path;
  return out;
}

function answer(result: ExecutionResult): GraphqlAnswer {
  const out: Record<string, unknown> = {};
  const errors = result.errors ?? [];
  if (errors.length > 0) out.errors = errors.map(errorJson);
  if ('data' in result && result.data !== undefined) out.data = result.data;
  return { status: errors.length > 0 ? 400 : 200, body: JSON.stringify(out) };
}

/** Parses and validates a query; errors come back as the answer to send. */
export function prepare(params: GraphqlParams): { document: DocumentNode } | { answer: GraphqlAnswer } {
  let document: DocumentNode;
  try {
    document = parse(params.query);
  } catch (err) {
    return { answer: answer({ errors: [err as GraphQLError] }) };
  }
  const errors = validate(graphqlSchema(), document, RULES);
  if (errors.length > 0) return { answer: answer({ errors }) };
  return { document };
}

/** The operation a document runs (for refusing mutations over GET); undefined when ambiguous. */
export function operationKind(document: DocumentNode, operationName?: string | null): string | undefined {
  return getOperationAST(document, operationName ?? undefined)?.operation;
}

/** Runs a prepared document; the request's snapshot is released once execution has finished. */
export async function run(
  deps: GraphqlDeps,
  document: DocumentNode,
  params: GraphqlParams,
  signal: AbortSignal,
): Promise<GraphqlAnswer> {
  const req = new GraphqlRequest(deps, signal);
  try {
    const result = await execute({
      schema: graphqlSchema(),
      document,
      rootValue: new Root(req),
      contextValue: req,
      variableValues: params.variables ?? undefined,
      operationName: params.operationName ?? undefined,
    });
    return answer(result);
  } finally {
    req.release();
  }
}

/** Parse, validate and run. */
export async function executeGraphql(
  deps: GraphqlDeps,
  params: GraphqlParams,
  signal: AbortSignal = new AbortController().signal,
): Promise<GraphqlAnswer> {
  const prepared = prepare(params);
  if ('answer' in prepared) return prepared.answer;
  return run(deps, prepared.document, params, signal);
}
