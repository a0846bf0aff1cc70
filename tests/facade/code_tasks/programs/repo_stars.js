const repo = await github.repos_get({ owner: "octo-org", repo: "hello-world" });
return repo.stargazers_count;
