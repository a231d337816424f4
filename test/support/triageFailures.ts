/**
 * Triage that answers which failures a text holds: the report of triageText less the verdict triage adds to a text in
 * which it recognized none (`noFailureFound`), so a test can say "no failure here" as an empty list.
 */
import type { TriageReport } from '../../server/src/protocol';
import { triageText } from '../../server/src/triage/index';

export function triageFailures(text: string, source: string): TriageReport {
  const report = triageText(text, source);
  return { ...report, verdicts: report.verdicts.filter((v) => !v.noFailureFound) };
}
