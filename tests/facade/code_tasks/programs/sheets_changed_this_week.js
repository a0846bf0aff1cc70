const { files } = await gdrive.files_list({
  q: "mimeType = 'application/vnd.google-apps.spreadsheet' and modifiedTime > '2026-03-09T00:00:00' and trashed = false",
  order_by: "modifiedTime desc" });
const books = await Promise.all(files.map(f => gsheets.spreadsheets_get({ spreadsheet_id: f.id })));
return books.map(b => ({
  name: b.properties.title,
  tabs: b.sheets.map(s => ({ title: s.properties.title, rows: s.properties.gridProperties.rowCount })),
}));
