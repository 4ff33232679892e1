/** The skills domain's front door: the skills an agent run is given. */
export { assertSkillsInWorkspace, skillPrompts } from './skills.service.ts';
