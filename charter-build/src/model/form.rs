//! What a form body can carry: no empty list.
//!
//! `application/x-www-form-urlencoded` writes a list as one pair per item (`tax_rates[0]=txr_1`),
//! so an empty list has no encoding at all. Stripe's own clients (stripe-node, stripe-python,
//! stripe-ruby) drop it, which silently loses "replace the list with nothing"; sending `key=`
//! instead means "unset the field", which Stripe takes only where it documents `""` and refuses
//! elsewhere. So every list a form tool sends holds at least one item: the schema says
//! `minItems: 1` and validation refuses `[]` at its path before the call. A field the API lets
//! the caller clear is declared `nullable`: `null` goes out as `key=`.

use super::{BodyModel, Node, NodeKind, ToolModel, Ty, TypeModel};
use crate::pack::In;

/// Raises `min_items` to 1 on every list the body parameters of a form tool reach, inline or
/// through named types (a type reached from a form body is raised wherever it is used).
pub(super) fn non_empty_lists(tools: &mut [ToolModel], types: &mut [TypeModel]) {
    let mut reached = Vec::new();
    for tool in tools.iter_mut().filter(|t| t.body == BodyModel::Form) {
        for param in tool
            .params
            .iter_mut()
            .filter(|p| p.location == Some(In::Body))
        {
            in_ty(&mut param.ty, &mut reached);
        }
    }
    let mut done = vec![false; types.len()];
    while let Some(index) = reached.pop() {
        if !std::mem::replace(&mut done[index], true) {
            in_node(&mut types[index].node, &mut reached);
        }
    }
}

fn in_ty(ty: &mut Ty, reached: &mut Vec<usize>) {
    match ty {
        Ty::Ref { index, .. } => reached.push(*index),
        Ty::Inline(node) => in_node(node, reached),
    }
}

fn in_node(node: &mut Node, reached: &mut Vec<usize>) {
    match &mut node.kind {
        NodeKind::Array {
            items, min_items, ..
        } => {
            if min_items.unwrap_or(0) == 0 {
                *min_items = Some(1);
            }
            in_ty(items, reached);
        }
        NodeKind::Object(fields, _) => {
            for field in fields {
                in_ty(&mut field.ty, reached);
            }
        }
        NodeKind::Map(values) => in_ty(values, reached),
        NodeKind::OneOf(alternatives) => {
            for alternative in alternatives {
                in_ty(alternative, reached);
            }
        }
        NodeKind::Any
        | NodeKind::Bool
        | NodeKind::Integer(_)
        | NodeKind::Number(_)
        | NodeKind::String(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FieldModel, PackModel};
    use super::*;

    const PACK: &str = r#"pack: shop
description: A form API.
base_url: https://shop.example
types:
  Line:
    type: object
    description: A line.
    properties:
      tags: { type: array, items: { type: string }, description: Tags. }
      parts: { type: array, items: { ref: Line }, description: Sub-lines. }
tools:
  orders_create:
    description: Create an order.
    method: POST
    path: /orders
    body_encoding: form
    params:
      lines: { in: body, type: array, items: { ref: Line }, description: The lines. }
      codes: { in: body, type: array, min_items: 0, items: { type: string }, description: Codes. }
      slots: { in: body, type: array, min_items: 3, items: { type: integer }, description: Slots. }
      extra: { in: body, type: map, values: { type: array, items: { type: string } }, description: Extra. }
      price:
        in: body
        description: An amount or tiers.
        one_of:
          - { type: integer }
          - { type: array, items: { type: integer } }
      expand: { in: query, type: array, items: { type: string }, description: Expand. }
  orders_search:
    description: Search orders with a JSON body.
    method: POST
    path: /orders/search
    params:
      ids: { in: body, type: array, items: { type: string }, description: Ids. }
"#;

    fn min_items(ty: &Ty, pack: &PackModel) -> Option<u32> {
        let node = match ty {
            Ty::Inline(node) => node,
            Ty::Ref { index, .. } => &pack.types[*index].node,
        };
        match &node.kind {
            NodeKind::Array { min_items, .. } => *min_items,
            NodeKind::Map(values) => min_items(values, pack),
            NodeKind::OneOf(alternatives) => min_items(&alternatives[1], pack),
            other => panic!("not a list: {other:?}"),
        }
    }

    fn param<'p>(pack: &'p PackModel, tool: usize, name: &str) -> &'p FieldModel {
        let params = &pack.tools[tool].params;
        params.iter().find(|p| p.name == name).unwrap()
    }

    #[test]
    fn every_list_a_form_body_reaches_holds_an_item() {
        let pack = crate::load_str("shop.yaml", PACK).unwrap();
        for name in ["lines", "codes", "extra", "price"] {
            assert_eq!(
                min_items(&param(&pack, 0, name).ty, &pack),
                Some(1),
                "{name}"
            );
        }
        // A larger minimum stays; a query list and a JSON body's list are not form lists.
        assert_eq!(min_items(&param(&pack, 0, "slots").ty, &pack), Some(3));
        assert_eq!(min_items(&param(&pack, 0, "expand").ty, &pack), None);
        assert_eq!(min_items(&param(&pack, 1, "ids").ty, &pack), None);
        // Through the named (and recursive) type.
        let NodeKind::Object(fields, _) = &pack.types[0].node.kind else {
            panic!("Line is an object")
        };
        for field in fields {
            assert_eq!(min_items(&field.ty, &pack), Some(1), "Line.{}", field.name);
        }
    }
}
