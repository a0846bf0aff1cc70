const [events, parents] = await Promise.all([
  gcalendar.events_list({
    calendar_id: "primary", time_min: "2026-03-09T00:00:00Z", time_max: "2026-03-16T00:00:00Z",
    single_events: true, order_by: "startTime" }),
  notion.search({ query: "Weekly notes", filter: { property: "object", value: "page" } }),
]);
const lines = events.items.map(e =>
  `- ${e.start.dateTime.slice(0, 10)} ${e.start.dateTime.slice(11, 16)}–${e.end.dateTime.slice(11, 16)} ${e.summary}`);
const page = await notion.pages_create({
  parent: { page_id: parents.results[0].id },
  properties: { title: { title: [{ text: { content: "Week of 9 March 2026" } }] } },
  markdown: lines.join("\n"),
});
return page.url;
