/** The one way an arm is named everywhere (plan, journal, CSVs, --arms): `backend` or `backend:variant`. */
export function armLabel(arm: { readonly backend: string; readonly variant?: string | null }): string {
  return arm.variant ? `${arm.backend}:${arm.variant}` : arm.backend;
}
