/** The Connect UI's words. `{name}` is replaced by the integration's name. */
const EN = {
  loading: "Loading…",
  close: "Close",
  back: "Back",
  listTitle: "Connect an account",
  reconnectTitle: "Authorize again",
  listIntro: "Choose the service to connect. You sign in there; your password is never shared with this app.",
  search: "Search",
  searchPlaceholder: "Search services",
  noMatch: "No service matches “{query}”.",
  noIntegrations: "There is nothing to connect yet. Ask the app that sent you here.",
  stepChoose: "Choose",
  stepSignIn: "Sign in",
  stepDone: "Done",
  oauthIntro: "A window opens at {name}. Sign in there and allow access; it closes when you are done.",
  formIntro: "Enter the details below. They are stored encrypted and sent only to {name}.",
  formFieldsThenOauth: "Enter the details below, then sign in at {name} and allow access.",
  whereToFind: "Where to find it",
  required: "Required",
  connectTo: "Connect {name}",
  continueTo: "Continue to {name}",
  waiting: "Waiting for {name}… Finish in the window that opened.",
  connecting: "Connecting…",
  successTitle: "Connected",
  successMessage: "{name} is connected. You can go back to the app.",
  successTab: "{name} is connected. You can close this tab.",
  finish: "Finish",
  failedTitle: "Could not connect {name}",
  tryAgain: "Try again",
  declined: "Access was not allowed at {name}. To connect, sign in again and choose Allow.",
  popupBlocked: "The browser blocked the sign-in window. Allow pop-ups for this page and try again.",
  popupClosed: "The sign-in window was closed before you finished.",
  providerError: "{name} answered with an error. Try again in a moment.",
  invalidCredentials: "{name} did not accept these details. Check them and try again.",
  unknownError: "Something went wrong. Try again.",
  cannotConnect: "Cannot connect",
  sessionExpired: "This connect link has expired. Go back to the app and start again.",
  sessionUnknown: "This connect link is not valid. Go back to the app and start again.",
  noToken: "This page opens from an app. Go back to the app and start connecting from there.",
  networkError: "Junction could not be reached. Check your connection and try again.",
};

export type Words = typeof EN;

const FR: Words = {
  loading: "Chargement…",
  close: "Fermer",
  back: "Retour",
  listTitle: "Connecter un compte",
  reconnectTitle: "Autoriser à nouveau",
  listIntro:
    "Choisissez le service à connecter. Vous vous y connectez ; votre mot de passe n’est jamais transmis à cette application.",
  search: "Rechercher",
  searchPlaceholder: "Rechercher un service",
  noMatch: "Aucun service ne correspond à « {query} ».",
  noIntegrations: "Il n’y a rien à connecter pour l’instant. Demandez à l’application qui vous a envoyé ici.",
  stepChoose: "Choisir",
  stepSignIn: "Se connecter",
  stepDone: "Terminé",
  oauthIntro: "Une fenêtre s’ouvre chez {name}. Connectez-vous et autorisez l’accès ; elle se ferme ensuite.",
  formIntro: "Saisissez les informations ci-dessous. Elles sont chiffrées et envoyées uniquement à {name}.",
  formFieldsThenOauth: "Saisissez les informations ci-dessous, puis connectez-vous chez {name} et autorisez l’accès.",
  whereToFind: "Où les trouver",
  required: "Obligatoire",
  connectTo: "Connecter {name}",
  continueTo: "Continuer vers {name}",
  waiting: "En attente de {name}… Terminez dans la fenêtre qui s’est ouverte.",
  connecting: "Connexion…",
  successTitle: "Connecté",
  successMessage: "{name} est connecté. Vous pouvez revenir à l’application.",
  successTab: "{name} est connecté. Vous pouvez fermer cet onglet.",
  finish: "Terminer",
  failedTitle: "Impossible de connecter {name}",
  tryAgain: "Réessayer",
  declined: "L’accès n’a pas été autorisé chez {name}. Reconnectez-vous et choisissez Autoriser.",
  popupBlocked: "Le navigateur a bloqué la fenêtre de connexion. Autorisez les fenêtres pour cette page et réessayez.",
  popupClosed: "La fenêtre de connexion a été fermée avant la fin.",
  providerError: "{name} a répondu par une erreur. Réessayez dans un instant.",
  invalidCredentials: "{name} n’a pas accepté ces informations. Vérifiez-les et réessayez.",
  unknownError: "Une erreur est survenue. Réessayez.",
  cannotConnect: "Connexion impossible",
  sessionExpired: "Ce lien de connexion a expiré. Revenez à l’application et recommencez.",
  sessionUnknown: "Ce lien de connexion n’est pas valide. Revenez à l’application et recommencez.",
  noToken: "Cette page s’ouvre depuis une application. Revenez à l’application et connectez-vous depuis celle-ci.",
  networkError: "Junction est injoignable. Vérifiez votre connexion et réessayez.",
};

const LANGUAGES: Record<string, Words> = { en: EN, fr: FR };

/** The words of `lang` (`fr`, `fr-CA`), else of the browser's language, else English. */
export function wordsFor(lang: string | null): { lang: string; words: Words } {
  for (const candidate of [lang, ...navigator.languages]) {
    const base = candidate?.toLowerCase().split("-")[0];
    if (base && LANGUAGES[base]) return { lang: base, words: LANGUAGES[base] };
  }
  return { lang: "en", words: EN };
}

/** `text` with each `{key}` replaced. */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
}
