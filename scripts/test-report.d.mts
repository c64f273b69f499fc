export interface FileResult {
  name: string;
  status: string;
  assertionResults: { status: string }[];
}
export function unreportedFiles(
  expected: Set<string>,
  testResults: FileResult[],
): { missing: string[]; broken: string[] };
