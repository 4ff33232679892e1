/** What a run may still spend in this step: pages to fetch and leads to save. */
export interface Budget {
  pagesLeft: number;
  leadsLeft: number;
}
