package server

import (
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
)

// The wire protocol as clients see it (the method names, their params and
// results, the error codes, the limits) lives in package proto, which the
// clients import without this package. The server's code names it as its
// own through the aliases below.

// AnswerPermissionParams is proto.AnswerPermissionParams.
type AnswerPermissionParams = proto.AnswerPermissionParams

// AttachInputParams is proto.AttachInputParams.
type AttachInputParams = proto.AttachInputParams

// AttachParams is proto.AttachParams.
type AttachParams = proto.AttachParams

// AttachResizeParams is proto.AttachResizeParams.
type AttachResizeParams = proto.AttachResizeParams

// AttachResult is proto.AttachResult.
type AttachResult = proto.AttachResult

// ChatParams is proto.ChatParams.
type ChatParams = proto.ChatParams

// ChatView is proto.ChatView.
type ChatView = proto.ChatView

// ChatsChangedParams is proto.ChatsChangedParams.
type ChatsChangedParams = proto.ChatsChangedParams

// ConfigRefusedParams is proto.ConfigRefusedParams.
type ConfigRefusedParams = proto.ConfigRefusedParams

// CreateAndStartParams is proto.CreateAndStartParams.
type CreateAndStartParams = proto.CreateAndStartParams

// DeriveParams is proto.DeriveParams.
type DeriveParams = proto.DeriveParams

// DetachParams is proto.DetachParams.
type DetachParams = proto.DetachParams

// EmptyResult is proto.EmptyResult.
type EmptyResult = proto.EmptyResult

// EntriesParams is proto.EntriesParams.
type EntriesParams = proto.EntriesParams

// ExitedParams is proto.ExitedParams.
type ExitedParams = proto.ExitedParams

// ExportParams is proto.ExportParams.
type ExportParams = proto.ExportParams

// ExportReport is proto.ExportReport.
type ExportReport = proto.ExportReport

// FoldersParams is proto.FoldersParams.
type FoldersParams = proto.FoldersParams

// ForgetParams is proto.ForgetParams.
type ForgetParams = proto.ForgetParams

// HelloResult is proto.HelloResult.
type HelloResult = proto.HelloResult

// HistoryParams is proto.HistoryParams.
type HistoryParams = proto.HistoryParams

// HistoryResult is proto.HistoryResult.
type HistoryResult = proto.HistoryResult

// HookParams is proto.HookParams.
type HookParams = proto.HookParams

// IDParams is proto.IDParams.
type IDParams = proto.IDParams

// ImportParams is proto.ImportParams.
type ImportParams = proto.ImportParams

// ImportReport is proto.ImportReport.
type ImportReport = proto.ImportReport

// KillResult is proto.KillResult.
type KillResult = proto.KillResult

// ListResult is proto.ListResult.
type ListResult = proto.ListResult

// LookParams is proto.LookParams.
type LookParams = proto.LookParams

// NewParams is proto.NewParams.
type NewParams = proto.NewParams

// Notice is proto.Notice.
type Notice = proto.Notice

// ObservedEntry is proto.ObservedEntry.
type ObservedEntry = proto.ObservedEntry

// OutputParams is proto.OutputParams.
type OutputParams = proto.OutputParams

// PromptParams is proto.PromptParams.
type PromptParams = proto.PromptParams

// PromptResult is proto.PromptResult.
type PromptResult = proto.PromptResult

// RemoveMissingResult is proto.RemoveMissingResult.
type RemoveMissingResult = proto.RemoveMissingResult

// RemoveParams is proto.RemoveParams.
type RemoveParams = proto.RemoveParams

// RemoveReport is proto.RemoveReport.
type RemoveReport = proto.RemoveReport

// RenameParams is proto.RenameParams.
type RenameParams = proto.RenameParams

// RenderParams is proto.RenderParams.
type RenderParams = proto.RenderParams

// RenderResult is proto.RenderResult.
type RenderResult = proto.RenderResult

// ScreenPatch is proto.ScreenPatch.
type ScreenPatch = proto.ScreenPatch

// ScreenUpdate is proto.ScreenUpdate.
type ScreenUpdate = proto.ScreenUpdate

// SetDirectoriesParams is proto.SetDirectoriesParams.
type SetDirectoriesParams = proto.SetDirectoriesParams

// SetFilesParams is proto.SetFilesParams.
type SetFilesParams = proto.SetFilesParams

// ShowParams is proto.ShowParams.
type ShowParams = proto.ShowParams

// BudgetParams is proto.BudgetParams.
type BudgetParams = proto.BudgetParams

// SizeParams is proto.SizeParams.
type SizeParams = proto.SizeParams

// StatesResult is proto.StatesResult.
type StatesResult = proto.StatesResult

// TranscriptParams is proto.TranscriptParams.
type TranscriptParams = proto.TranscriptParams

// TranscriptResult is proto.TranscriptResult.
type TranscriptResult = proto.TranscriptResult

// ValidateParams is proto.ValidateParams.
type ValidateParams = proto.ValidateParams

// ValidateResult is proto.ValidateResult.
type ValidateResult = proto.ValidateResult

// WriteParams is proto.WriteParams.
type WriteParams = proto.WriteParams

// The method and notification names, error codes and limits of proto.
const (
	CodeChatNotFound       = proto.CodeChatNotFound
	CodeFailed             = proto.CodeFailed
	CodeInternalError      = proto.CodeInternalError
	CodeInvalidParams      = proto.CodeInvalidParams
	CodeInvalidRequest     = proto.CodeInvalidRequest
	CodeMethodNotFound     = proto.CodeMethodNotFound
	CodeParseError         = proto.CodeParseError
	LockName               = proto.LockName
	MaxAttachPending       = proto.MaxAttachPending
	MaxCols                = proto.MaxCols
	MaxLine                = proto.MaxLine
	MaxRows                = proto.MaxRows
	MaxTransferRoots       = proto.MaxTransferRoots
	MethodAddFolders       = proto.MethodAddFolders
	MethodAnswerPermission = proto.MethodAnswerPermission
	MethodAttach           = proto.MethodAttach
	MethodAttachInput      = proto.MethodAttachInput
	MethodAttachResize     = proto.MethodAttachResize
	MethodCancel           = proto.MethodCancel
	MethodChat             = proto.MethodChat
	MethodBudget           = proto.MethodBudget
	MethodCreateAndStart   = proto.MethodCreateAndStart
	MethodDerive           = proto.MethodDerive
	MethodDetach           = proto.MethodDetach
	MethodEntries          = proto.MethodEntries
	MethodExport           = proto.MethodExport
	MethodFill             = proto.MethodFill
	MethodFoldersChanged   = proto.MethodFoldersChanged
	MethodForget           = proto.MethodForget
	MethodHello            = proto.MethodHello
	MethodHistory          = proto.MethodHistory
	MethodHook             = proto.MethodHook
	MethodImport           = proto.MethodImport
	MethodKill             = proto.MethodKill
	MethodList             = proto.MethodList
	MethodLook             = proto.MethodLook
	MethodNew              = proto.MethodNew
	MethodObserve          = proto.MethodObserve
	MethodPrompt           = proto.MethodPrompt
	MethodReady            = proto.MethodReady
	MethodRemove           = proto.MethodRemove
	MethodRemoveFolders    = proto.MethodRemoveFolders
	MethodRemoveMissing    = proto.MethodRemoveMissing
	MethodRename           = proto.MethodRename
	MethodRender           = proto.MethodRender
	MethodResize           = proto.MethodResize
	MethodRestart          = proto.MethodRestart
	MethodSetDirectories   = proto.MethodSetDirectories
	MethodSetFiles         = proto.MethodSetFiles
	MethodShow             = proto.MethodShow
	MethodStart            = proto.MethodStart
	MethodStop             = proto.MethodStop
	MethodTranscript       = proto.MethodTranscript
	MethodUnobserve        = proto.MethodUnobserve
	MethodValidate         = proto.MethodValidate
	MethodWatch            = proto.MethodWatch
	MethodWrite            = proto.MethodWrite
	NotifyChanged          = proto.NotifyChanged
	NotifyChatsChanged     = proto.NotifyChatsChanged
	NotifyConfigRefused    = proto.NotifyConfigRefused
	NotifyExited           = proto.NotifyExited
	NotifyNotice           = proto.NotifyNotice
	NotifyOutput           = proto.NotifyOutput
	NotifyScreen           = proto.NotifyScreen
	ObservedAgent          = proto.ObservedAgent
	ObservedMissed         = proto.ObservedMissed
	ObservedNotice         = proto.ObservedNotice
	ObservedRefused        = proto.ObservedRefused
	ObservedStderr         = proto.ObservedStderr
	ObservedThought        = proto.ObservedThought
	ObservedTool           = proto.ObservedTool
	ObservedTurnEnded      = proto.ObservedTurnEnded
	ObservedTurnStarted    = proto.ObservedTurnStarted
	ObservedUser           = proto.ObservedUser
	SocketName             = proto.SocketName
	maxSunPath             = proto.MaxSunPath
)

// SocketPath is proto.SocketPath: the server's socket inside the agent home.
func SocketPath(home string) string { return proto.SocketPath(home) }

// ShortAddr is proto.ShortAddr: an address for the socket file at path that
// fits in a sockaddr_un.
func ShortAddr(path string) (addr string, release func(), err error) { return proto.ShortAddr(path) }

// LockHolder is proto.LockHolder: the pid recorded in the agent home's lock
// file, or 0.
func LockHolder(home string) int { return proto.LockHolder(home) }

// ObservedFrom is proto.ObservedFrom: a mux entry as it goes on the wire.
func ObservedFrom(e mux.Entry) (ObservedEntry, bool) { return proto.ObservedFrom(e) }
