// The journal's vocabulary (payment IDs and states, event kinds) is the sync contract's: an app that imports
// TenderHandoff sees it without importing TenderSync too.
@_exported public import TenderSync
