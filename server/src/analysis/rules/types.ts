import type { Node, Tree } from 'web-tree-sitter';
import type { DeviceSpec } from '../../devices/catalog';
import type { TrainingFacts } from '../facts';
import type { SourceLanguage } from '../parser';
import type { MemoryPlan } from '../plan';
import type { Loc, PythonIndex } from '../pyindex';

/** The failure classes of the JSON contract; these names stay. */
export type FindingClass =
  | 'cache-held-collective'
  | 'global-state-race'
  | 'rank-divergent-allocation'
  | 'sticky-error'
  | 'oom-handler-retention'
  | 'alloc-conf'
  | 'gc-threshold-without-fraction'
  | 'plan-over-capacity';

export type Severity = 'error' | 'warning' | 'info';

export interface TextEdit {
  range: Loc;
  newText: string;
}

/** A code change that fixes a finding, offered as a quick fix. */
export interface CodeFix {
  title: string;
  edits: TextEdit[];
}

export interface Finding {
  rule: string;
  class: FindingClass;
  severity: Severity;
  loc: Loc;
  message: string;
  /** What to change, in words (also when no automatic edit exists). */
  fix: string | null;
  codeFix?: CodeFix;
  /** The facts that produced the finding (source lines, numbers). */
  evidence: string[];
}

export interface RuleContext {
  language: SourceLanguage;
  text: string;
  tree: Tree;
  /** Python only. */
  idx?: PythonIndex;
  facts?: TrainingFacts;
  plan?: MemoryPlan;
  device: DeviceSpec;
}

export interface Rule {
  id: string;
  class: FindingClass;
  title: string;
  /** Page under docs/ (docs/rules/HR0xx.md). */
  docs: string;
  languages: readonly SourceLanguage[];
  detect(ctx: RuleContext): Finding[];
}

export type { Node };
