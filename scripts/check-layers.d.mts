export const FAIL_ON_EXEC_FOLDER_CYCLES: boolean;
export const RULES: ReadonlyArray<{
  from: string;
  allow?: string[];
  deny?: string[];
  except?: Record<string, string[]>;
  why: string;
}>;
export function importGraph(srcDir: string): Map<string, string[]>;
export function violations(graph: Map<string, string[]>): string[];
export function execFolderCycles(graph: Map<string, string[]>): string[][];
export function checkLayers(
  srcDir: string,
  failOnExecCycles?: boolean,
): { ok: boolean; errors: string[]; notes: string[] };
