const teams = await linear.teams_list({});
const team = teams.data.teams.nodes.find(t => t.name === "Engineering");
const byState = {};
let after;
do {
  const page = await linear.cycles_current({ team_id: team.id, first: 50, after });
  const issues = page.data.team.activeCycle.issues;
  for (const issue of issues.nodes.filter(i => i.assignee === null)) {
    (byState[issue.state.name] ??= []).push(issue.identifier);
  }
  after = issues.pageInfo.hasNextPage ? issues.pageInfo.endCursor : undefined;
} while (after);
return byState;
