// The principal travels in the request context, which core defines; auth decides who it is.
export type {
  AccountContext,
  AccountPrincipal,
  ActingUser,
  ApiKeyPrincipal,
  OperatorPrincipal,
  Principal,
  UserPrincipal,
} from '../core/principal';
