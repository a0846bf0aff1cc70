const repo = { owner: "octo-org", repo: "hello-world" };
const prs = await github.pulls_list({ ...repo, state: "open", per_page: 100 });
// A PR with a requested reviewer has one; of the others, those nobody has reviewed yet.
const unrequested = prs.filter(pr => pr.requested_reviewers.length === 0);
const reviews = await Promise.all(
  unrequested.map(pr => github.pulls_list_reviews({ ...repo, pull_number: pr.number })));
return unrequested
  .filter((pr, i) => reviews[i].length === 0)
  .map(pr => ({ number: pr.number, title: pr.title }));
