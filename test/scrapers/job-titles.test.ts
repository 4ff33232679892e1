import { describe, expect, it } from 'vitest';
import { canonicalTitles, isJobTitle, titleMatches } from '../../scrapers/job-titles.ts';

describe('job titles', () => {
  it.each([
    ['CTO', 'Chief Technology Officer', true],
    ['CTO', 'Chief Technical Officer', true],
    ['CTOs', 'Co-Founder & CTO', true],
    ['CTO', 'CEO', false],
    ['chief technology officer', 'CTO', true],
    ['founders', 'Co-Founder & CEO', true],
    ['founder', 'Cofounder', true],
    ['Heads of Sales', 'Head of Sales', true],
    ['head of sales', 'Head of Marketing', false],
    ['VP engineering', 'VP of Engineering', true],
    ['VP engineering', 'Vice President, Engineering', false],
    ['engineer', 'Senior Software Engineer', true],
    ['Chief Executives', 'Chief Executive Officer', true],
    ['CFO', 'Chief Financial Officer', true],
    ['CFO', 'Office Manager', false],
  ])('%s wanted, %s held: %s', (wanted, title, match) => {
    expect(titleMatches(title, [wanted])).toBe(match);
  });

  it('splits combined titles into roles, spelled out', () => {
    expect(canonicalTitles('Co-Founder & CTO')).toEqual(['founder', 'chief technology officer']);
    expect(canonicalTitles('Head of Sales (m/f/d)')).toEqual(['head sales']);
  });

  it('tells titles from headings, sentences and names', () => {
    for (const title of [
      'CEO',
      'Co-Founder & CEO',
      'VP Engineering',
      'Head of Marketing',
      'Senior Software Engineer',
      'Office Manager',
      'Managing Director',
    ])
      expect(isJobTitle(title), title).toBe(true);
    for (const text of [
      'Our Team',
      'Contact us',
      'Anna Schmidt',
      'We build payment infrastructure for small businesses.',
      'Meet the leadership',
      'anna@acme.test',
    ])
      expect(isJobTitle(text), text).toBe(false);
  });
});
