/**
 * A cell's model traffic, read back from the model service's journal once the cell has ended and
 * grouped by attempt route. Both the rollout cell and the rollout-step kind join their attempts
 * with it; a journal that cannot be read leaves the traffic empty and says why (the cell records it
 * as a service error, never as attempts that made no requests).
 */
import { readModelJournal, type ModelJournalEntry } from '../../services/model/index.ts';

export interface CellModelTraffic {
  /** The entries of the cell's routes, in journal order. */
  entries: ModelJournalEntry[];
  /** Route id → its entries. */
  byRoute: Map<string, ModelJournalEntry[]>;
  /** Why the journal could not be read, or null. */
  serviceError: string | null;
}

export function readCellModelTraffic(journalPath: string, routeIds: ReadonlySet<string>): CellModelTraffic {
  let entries: ModelJournalEntry[] = [];
  let serviceError: string | null = null;
  try {
    entries = readModelJournal(journalPath).entries.filter((entry) => entry.attempt !== null && routeIds.has(entry.attempt));
  } catch (error) {
    serviceError = `model journal: ${(error as Error).message}`;
  }
  const byRoute = new Map<string, ModelJournalEntry[]>();
  for (const entry of entries) byRoute.set(entry.attempt!, [...(byRoute.get(entry.attempt!) ?? []), entry]);
  return { entries, byRoute, serviceError };
}
