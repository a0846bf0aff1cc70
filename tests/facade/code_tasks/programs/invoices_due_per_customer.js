const invoices = await stripe.invoices_list({ status: "open", limit: 100 });
const due = {};
for (const invoice of invoices.data) {
  due[invoice.customer] = (due[invoice.customer] ?? 0) + invoice.amount_remaining;
}
const customers = await Promise.all(
  Object.keys(due).map(id => stripe.customers_get({ customer: id })));
return customers
  .map(c => ({ customer: c.name, email: c.email, due: due[c.id] / 100 }))
  .sort((a, b) => b.due - a.due);
