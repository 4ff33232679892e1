import { describe, expect, it } from 'vitest';
import { researchCriteria } from '../../src/agents/run/researcher/goal-criteria.ts';
import { titleMatches } from '../../scrapers/job-titles.ts';

/** Titles read from a goal are the titles one person holds: singular, abbreviations as written on team pages, never wider. */
describe('titles from a goal', () => {
  const titles = (goal: string) => researchCriteria(goal, null).titles;

  it('turns plurals and "Heads of X" into one person\'s title', () => {
    expect(titles('Heads of Sales at fintech companies in Berlin')).toEqual(['Head of Sales']);
    expect(titles('Heads of Sales and Marketing at fintech companies in Berlin')).toEqual(['Head of Sales', 'Head of Marketing']);
    expect(titles('Founders of logistics startups in Munich')).toEqual(['Founder']);
    expect(titles('Head of Operations at fintech companies in Berlin')).toEqual(['Head of Operations']);
  });

  it('writes CEO, CTO and VP abbreviations as titles do, whatever the case or number', () => {
    expect(titles('ctos and CEOs of cybersecurity companies in Amsterdam')).toEqual(['CTO', 'CEO']);
    expect(titles('VPs of Engineering at logistics startups in Munich')).toEqual(['VP of Engineering']);
    expect(researchCriteria('Find decision makers', { titles: ['ctos', 'Heads of Product'] }).titles).toEqual(['CTO', 'Head of Product']);
  });

  it('never widens a title: a Head of Sales is not a VP Sales', () => {
    const [wanted] = titles('Heads of Sales at fintech companies in Berlin');
    expect(titleMatches('Head of Sales', [wanted!])).toBe(true);
    expect(titleMatches('VP Sales', [wanted!])).toBe(false);
    expect(titleMatches('Head of Marketing', [wanted!])).toBe(false);
    expect(titleMatches('Chief Technology Officer', titles('CTOs of fintech companies in Berlin'))).toBe(true);
  });
});
