/** The rule catalog: one module per rule, listed here once. */
import { rule as HR001 } from './HR001';
import { rule as HR002 } from './HR002';
import { rule as HR003 } from './HR003';
import { rule as HR004 } from './HR004';
import { rule as HR005 } from './HR005';
import { rule as HR006 } from './HR006';
import { rule as HR007 } from './HR007';
import { rule as HR008 } from './HR008';
import { rule as HR009 } from './HR009';
import { rule as HR010 } from './HR010';
import type { Rule } from './types';

export const RULES: readonly Rule[] = [HR001, HR002, HR003, HR004, HR005, HR006, HR007, HR008, HR009, HR010];
