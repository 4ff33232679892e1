/** `text` as a regular expression matching it literally. */
export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A query matching a stored text equal to `text` in any case (addresses are kept as written): for rare lookups, not index-served. */
export const sameTextAnyCase = (text: string) => ({ $regex: `^${escapeRegex(text.trim())}$`, $options: 'i' });

/** A query matching a stored text containing `text` in any case. */
export const containsTextAnyCase = (text: string) => ({ $regex: escapeRegex(text.trim()), $options: 'i' });
